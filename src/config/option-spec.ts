/** One row of the option table (src/config/options.ts); the logging options are rows too. */
export interface OptionSpec<T = unknown> {
  name: string;
  description: string;
  /** Default shown by --help and used when no source gives a value. Undefined = unset. */
  default?: T;
  /** Default for `start-dev` when it differs from `start`. */
  devDefault?: T;
  /** Parses the raw string; throws an Error whose message says what is allowed. */
  parse: (raw: string) => T;
  /** Shown in --help instead of the default (for secrets). */
  secret?: boolean;
  /** Group heading in --help. */
  group: string;
}
