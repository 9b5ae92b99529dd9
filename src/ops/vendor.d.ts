// The xliff package ships no types: the two conversions this project uses, as its README documents them.
declare module 'xliff' {
  interface XliffJs {
    sourceLanguage?: string;
    targetLanguage?: string;
    resources?: Record<string, Record<string, { source?: string; target?: string }>>;
  }
  const xliff: { js2xliff(js: XliffJs): Promise<string>; xliff2js(text: string): Promise<XliffJs> };
  export default xliff;
}
