import { compile } from '@ctrl/golang-template';
import { MessageInterpolator } from './interpolation';

jest.mock('@ctrl/golang-template', () => {
  const actual = jest.requireActual<typeof import('@ctrl/golang-template')>('@ctrl/golang-template');
  return { ...actual, compile: jest.fn(actual.compile) };
});

describe('MessageInterpolator (catalog rule 5)', () => {
  const i = new MessageInterpolator();

  it('fills Go-template placeholders from the args map', () => {
    expect(i.render('Hello {{.Name}}!', { Name: 'Ann' })).toBe('Hello Ann!');
  });
  it('reads nested fields', () => {
    expect(i.render('{{.User.Name}} has {{.Cart.Count}} items', { User: { Name: 'Bo' }, Cart: { Count: 3 } })).toBe('Bo has 3 items');
  });
  it('renders missing keys as zero values', () => {
    expect(i.render('Hello {{.Name}}!', {})).toBe('Hello !');
    expect(i.render('Hello {{.User.Name}}!')).toBe('Hello !');
  });
  it('returns the raw string on a parse error', () => {
    expect(i.render('Hello {{.Name', { Name: 'x' })).toBe('Hello {{.Name');
    expect(i.render('{{if .X}}open', { X: true })).toBe('{{if .X}}open');
    expect(i.render('{{Name}}', { Name: 'x' })).toBe('{{Name}}');
  });
  it('supports if and range of the template language', () => {
    expect(i.render('{{if .Admin}}admin{{else}}user{{end}}', { Admin: false })).toBe('user');
  });
  it('never starts the engine for strings without "{{" and compiles a template once', () => {
    const spy = compile as jest.Mock;
    spy.mockClear();
    expect(i.render('Plain text }} here', { A: 1 })).toBe('Plain text }} here');
    expect(spy).not.toHaveBeenCalled();
    i.render('Once {{.A}}', { A: 1 });
    i.render('Once {{.A}}', { A: 2 });
    expect(spy).toHaveBeenCalledTimes(1);
  });
  it('does not read prototype properties', () => {
    expect(i.render('{{.constructor}}|{{.__proto__}}', {})).toBe('|');
  });
});
