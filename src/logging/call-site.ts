/**
 * A cheaper call-site capture for log4js (`%L`, GELF location fields). log4js formats `new Error().stack`
 * and parses the text, which is slow (and slower still when source-map support rewrites stacks);
 * this reads V8's structured call sites directly, with a stack limited to the frames it needs.
 */
interface CallStack {
  fileName: string;
  lineNumber: number;
  columnNumber: number;
  callStack: string;
  className: string;
  functionName: string;
  functionAlias: string;
  callerName: string;
}

/** Frames between this function and the caller of `logger.info(...)`: Logger._log, Logger.log, Logger.info. */
const SKIP = 3;

/** log4js `parseCallStack` replacement: the caller of the logging method. */
export function fastCallStack(): CallStack | undefined {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  try {
    Error.prepareStackTrace = (_e, sites) => sites;
    Error.stackTraceLimit = SKIP + 1;
    Error.captureStackTrace(holder, fastCallStack);
    const site = holder.stack?.[SKIP];
    if (!site) return undefined;
    const functionName = site.getFunctionName() ?? site.getMethodName() ?? '';
    const className = site.getTypeName() ?? '';
    return {
      fileName: site.getFileName() ?? '',
      lineNumber: site.getLineNumber() ?? 0,
      columnNumber: site.getColumnNumber() ?? 0,
      callStack: '',
      className: className === 'Object' ? '' : className,
      functionName,
      functionAlias: '',
      callerName: functionName,
    };
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}
