/**
 * Java SimpleDateFormat patterns (as `%d{...}` and `--log-gelf-timestamp-format` take them), compiled
 * once into a formatter. Supported letters: G y Y M L d D E u a H k K h m s S z Z X, quoted text
 * ('T', '' for a quote). The time zone is the process's local zone unless one is given (`%z{zone}`).
 */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Calendar fields of an instant in a zone. */
interface Fields {
  y: number;
  M: number; // 0-11
  d: number;
  H: number;
  m: number;
  s: number;
  S: number;
  dow: number; // 0 = Sunday
  doy: number;
  offsetMin: number; // minutes east of UTC
  zoneName: string;
}

export type DateFormatter = (time: Date) => string;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function offsetText(min: number, style: 'Z' | 'X' | 'XX' | 'XXX'): string {
  if (min === 0 && style !== 'Z') return 'Z';
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  const hh = pad(Math.floor(a / 60), 2);
  const mm = pad(a % 60, 2);
  if (style === 'X') return `${sign}${hh}`;
  if (style === 'XXX') return `${sign}${hh}:${mm}`;
  return `${sign}${hh}${mm}`;
}

type Step = (f: Fields) => string;

function letterStep(ch: string, n: number): Step {
  switch (ch) {
    case 'G':
      return () => 'AD';
    case 'y':
    case 'Y':
      return n === 2 ? (f) => pad(f.y % 100, 2) : (f) => pad(f.y, n);
    case 'M':
    case 'L':
      if (n >= 4) return (f) => MONTHS[f.M];
      if (n === 3) return (f) => MONTHS[f.M].slice(0, 3);
      return (f) => pad(f.M + 1, n);
    case 'd':
      return (f) => pad(f.d, n);
    case 'D':
      return (f) => pad(f.doy, n);
    case 'E':
      return n >= 4 ? (f) => DAYS[f.dow] : (f) => DAYS[f.dow].slice(0, 3);
    case 'u':
      return (f) => pad(f.dow === 0 ? 7 : f.dow, n);
    case 'a':
      return (f) => (f.H < 12 ? 'AM' : 'PM');
    case 'H':
      return (f) => pad(f.H, n);
    case 'k':
      return (f) => pad(f.H === 0 ? 24 : f.H, n);
    case 'K':
      return (f) => pad(f.H % 12, n);
    case 'h':
      return (f) => pad(f.H % 12 === 0 ? 12 : f.H % 12, n);
    case 'm':
      return (f) => pad(f.m, n);
    case 's':
      return (f) => pad(f.s, n);
    case 'S':
      // Milliseconds, zero-padded to the letter count (Java semantics: SSS = millis).
      return (f) => pad(f.S, n);
    case 'z':
      return (f) => f.zoneName;
    case 'Z':
      return (f) => offsetText(f.offsetMin, 'Z').replace(/^Z$/, '+0000');
    case 'X':
      return (f) => offsetText(f.offsetMin, n === 1 ? 'X' : n === 2 ? 'XX' : 'XXX');
    default:
      throw new Error(`unknown date pattern letter '${ch}'; allowed: G y Y M L d D E u a H k K h m s S z Z X and 'quoted text'`);
  }
}

/** Compiles a SimpleDateFormat pattern; throws on an unknown letter or an unterminated quote. */
function compileSteps(pattern: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "'") {
      if (pattern[i + 1] === "'") {
        steps.push(() => "'");
        i += 2;
        continue;
      }
      let j = i + 1;
      let text = '';
      while (j < pattern.length) {
        if (pattern[j] === "'" && pattern[j + 1] === "'") {
          text += "'";
          j += 2;
        } else if (pattern[j] === "'") break;
        else text += pattern[j++];
      }
      if (j >= pattern.length) throw new Error(`unterminated quote in date pattern '${pattern}'`);
      steps.push(() => text);
      i = j + 1;
    } else if (/[A-Za-z]/.test(ch)) {
      let n = 1;
      while (pattern[i + n] === ch) n++;
      steps.push(letterStep(ch, n));
      i += n;
    } else {
      let j = i;
      while (j < pattern.length && pattern[j] !== "'" && !/[A-Za-z]/.test(pattern[j])) j++;
      const text = pattern.slice(i, j);
      steps.push(() => text);
      i = j;
    }
  }
  return steps;
}

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Checks a zone name (IANA, e.g. Europe/Paris, or UTC); throws naming the value. */
export function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new Error(`unknown time zone '${zone}'; use an IANA zone name such as UTC or Europe/Paris`);
  }
}

function zoneFields(zone: string | undefined): (t: Date) => Fields {
  if (!zone) {
    const shortName = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' });
    return (t) => {
      const offsetMin = -t.getTimezoneOffset();
      const start = Date.UTC(t.getFullYear(), 0, 1);
      const doy = Math.floor((Date.UTC(t.getFullYear(), t.getMonth(), t.getDate()) - start) / 86400000) + 1;
      return {
        y: t.getFullYear(),
        M: t.getMonth(),
        d: t.getDate(),
        H: t.getHours(),
        m: t.getMinutes(),
        s: t.getSeconds(),
        S: t.getMilliseconds(),
        dow: t.getDay(),
        doy,
        offsetMin,
        get zoneName() {
          return shortName.formatToParts(t).find((p) => p.type === 'timeZoneName')?.value ?? LOCAL_ZONE;
        },
      };
    };
  }
  checkTimeZone(zone);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    timeZoneName: 'short',
  });
  // The zone offset is looked up once per quarter hour (offsets change at most that often).
  let cacheKey = Number.NaN;
  let cached = { offsetMin: 0, zoneName: zone };
  return (t) => {
    const key = Math.floor(t.getTime() / 900000);
    if (key !== cacheKey) {
      const p = Object.fromEntries(parts.formatToParts(t).map((x) => [x.type, x.value]));
      const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
      const offsetMin = Math.round((asUtc - Math.floor(t.getTime() / 1000) * 1000) / 60000);
      cached = { offsetMin, zoneName: p.timeZoneName ?? zone };
      cacheKey = key;
    }
    const u = new Date(t.getTime() + cached.offsetMin * 60000);
    const doy =
      Math.floor((Date.UTC(u.getUTCFullYear(), u.getUTCMonth(), u.getUTCDate()) - Date.UTC(u.getUTCFullYear(), 0, 1)) / 86400000) + 1;
    return {
      y: u.getUTCFullYear(),
      M: u.getUTCMonth(),
      d: u.getUTCDate(),
      H: u.getUTCHours(),
      m: u.getUTCMinutes(),
      s: u.getUTCSeconds(),
      S: u.getUTCMilliseconds(),
      dow: u.getUTCDay(),
      doy,
      offsetMin: cached.offsetMin,
      zoneName: cached.zoneName,
    };
  };
}

/**
 * Compiles a SimpleDateFormat pattern (`yyyy-MM-dd HH:mm:ss,SSS`) into a formatter, in the given IANA
 * time zone or the local one. Throws an Error naming the bad letter, quote or zone.
 */
export function compileDateFormat(pattern: string, zone?: string): DateFormatter {
  const steps = compileSteps(pattern);
  const fieldsOf = zoneFields(zone);
  if (steps.length === 1) return (t) => steps[0](fieldsOf(t));
  return (t) => {
    const f = fieldsOf(t);
    let out = '';
    for (const s of steps) out += s(f);
    return out;
  };
}
