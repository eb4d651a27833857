// The version lives in package.json only; the command, /healthz, the API description and the
// pages read it from here (the build compiles the file in).
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
