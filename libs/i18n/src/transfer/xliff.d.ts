// The xliff package ships no type declarations; these cover the two functions used here.
declare module 'xliff' {
  export interface XliffUnit {
    source?: string | unknown[];
    target?: string | unknown[];
    note?: string;
    /** Units of a <group>. */
    groupUnits?: Record<string, XliffUnit>;
  }
  export interface XliffJs {
    sourceLanguage?: string;
    targetLanguage?: string;
    resources: Record<string, Record<string, XliffUnit>>;
  }
  export function js2xliff(js: XliffJs, options?: { indent?: string }): Promise<string>;
  export function xliff2js(xml: string): Promise<XliffJs>;
  const xliff: { js2xliff: typeof js2xliff; xliff2js: typeof xliff2js };
  export default xliff;
}
