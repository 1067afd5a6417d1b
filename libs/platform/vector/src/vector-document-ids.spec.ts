import { documentFromPoint, documentToPoint, pointIdForDocument } from './vector-document-ids';
import { POINT_ID_NAMESPACE } from './vector-input.validator';
import { VectorValidationError } from './vector-store.errors';
import { v5 as uuidV5 } from 'uuid';

describe('document ids to point ids', () => {
  it('passes decimal strings through as numbers and UUIDs lower-cased', () => {
    expect(pointIdForDocument('42')).toBe(42);
    expect(pointIdForDocument(7)).toBe(7);
    expect(pointIdForDocument('0')).toBe(0);
    expect(pointIdForDocument('7E57D004-2B97-4E7A-B45F-5387367791CD')).toBe('7e57d004-2b97-4e7a-b45f-5387367791cd');
  });

  it('hashes any other string to a UUID v5 in the documented namespace', () => {
    expect(POINT_ID_NAMESPACE).toBe('6f0c1f8e-3a57-4d2b-9a64-0c6de6b1f1a2');
    for (const id of ['doc-1', '007', '-3', '1.5', '12345678901234567890', 'ünïcode']) {
      expect(pointIdForDocument(id)).toBe(uuidV5(id, POINT_ID_NAMESPACE));
    }
    expect(pointIdForDocument('doc-1')).toBe(pointIdForDocument('doc-1'));
    expect(pointIdForDocument('doc-1')).not.toBe(pointIdForDocument('doc-2'));
  });

  it('keeps the original id in payload._id only when the point id differs, and restores it', () => {
    expect(documentToPoint('42', { a: 1 })).toEqual({ id: 42, payload: { a: 1 } });
    const hashed = documentToPoint('doc-1', { a: 1 });
    expect(hashed.payload).toEqual({ a: 1, _id: 'doc-1' });
    expect(documentFromPoint(hashed.id, hashed.payload)).toEqual({ id: 'doc-1', payload: { a: 1 } });
    const upper = documentToPoint('7E57D004-2B97-4E7A-B45F-5387367791CD', undefined);
    expect(documentFromPoint(upper.id, upper.payload).id).toBe('7E57D004-2B97-4E7A-B45F-5387367791CD');
    expect(documentFromPoint(42, {})).toEqual({ id: '42', payload: {} });
  });

  it('rejects empty, negative and fractional ids', () => {
    for (const bad of ['', -1, 1.5, null, {}]) expect(() => pointIdForDocument(bad)).toThrow(VectorValidationError);
  });
});

describe('documentFromPoint', () => {
  it('copies the payload without _id, keeping key order and an own "__proto__" key as a property', () => {
    const stored = JSON.parse('{"b":1,"_id":"doc-1","a":{"x":2},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const doc = documentFromPoint('9b2f0a4e-0000-5000-8000-000000000000', stored);
    expect(doc.id).toBe('doc-1');
    expect(Object.keys(doc.payload)).toEqual(['b', 'a', '__proto__']);
    expect(Object.getPrototypeOf(doc.payload)).toBe(Object.prototype);
    expect((doc.payload as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(doc.payload)).toBe('{"b":1,"a":{"x":2},"__proto__":{"polluted":true}}');
    // The stored payload is left as it was.
    expect(stored._id).toBe('doc-1');
  });
});
