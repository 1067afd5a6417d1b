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
  it('returns the raw string on an execution error instead of rendering it empty', () => {
    expect(i.render('Hi {{index .List 5}}', { List: ['a', 'b'] })).toBe('Hi {{index .List 5}}');
    expect(i.render('{{.Name.Foo}}', { Name: 'Ann' })).toBe('{{.Name.Foo}}');
    expect(i.render('Hi {{.User.Address.City}}', { User: { Name: 'Bo' } })).toBe('Hi {{.User.Address.City}}');
    expect(i.render('Hi {{.User.Name}}', { User: null })).toBe('Hi {{.User.Name}}');
    expect(i.render('{{index .Map 0}}', { Map: { a: 1 } })).toBe('{{index .Map 0}}');
    expect(i.render('{{range .Items}}{{.}};{{end}}', { Items: 'abc' })).toBe('{{range .Items}}{{.}};{{end}}');
    expect(i.render('{{range .Items}}{{.Name.First}};{{end}}', { Items: [{ Name: 'x' }] })).toBe('{{range .Items}}{{.Name.First}};{{end}}');
    expect(i.render('{{with .Name}}{{.Length}}{{end}}', { Name: 'Ann' })).toBe('{{with .Name}}{{.Length}}{{end}}');
    expect(i.render('{{if .Name.Foo}}yes{{end}}', { Name: 'Ann' })).toBe('{{if .Name.Foo}}yes{{end}}');
  });
  it('renders what works: indexes in range, map keys, the branch taken, arguments not passed', () => {
    expect(i.render('Hi {{index .List 1}}', { List: ['a', 'b'] })).toBe('Hi b');
    expect(i.render('{{index .Map "a"}}|{{index .Map "z"}}', { Map: { a: 1 } })).toBe('1|');
    expect(i.render('{{range .Items}}{{.Name}};{{end}}', { Items: [{ Name: 'x' }, { Name: 'y' }] })).toBe('x;y;');
    // The branch not taken is not evaluated (as in Go).
    expect(i.render('{{if .Name}}{{.Name}}{{else}}{{.Name.Foo}}{{end}}', { Name: 'Ann' })).toBe('Ann');
    // An argument the caller did not pass renders the zero value, also through a chain or an index.
    expect(i.render('Hi {{.User.Name}}{{index .List 5}}', {})).toBe('Hi ');
    expect(i.render('{{.User.Name}}', { User: {} })).toBe('');
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
