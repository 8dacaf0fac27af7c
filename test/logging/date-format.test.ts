// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { compileDateFormat } from '../../src/logging/date-format';

// 2024-03-05T07:08:09.012Z, a Tuesday.
const t = new Date(Date.UTC(2024, 2, 5, 7, 8, 9, 12));

describe('SimpleDateFormat patterns', () => {
  test.each([
    ['yyyy-MM-dd HH:mm:ss,SSS', '2024-03-05 07:08:09,012'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", '2024-03-05T07:08:09.012Z'],
    ['yy/M/d H:m:s', '24/3/5 7:8:9'],
    ['EEE, d MMM yyyy', 'Tue, 5 Mar 2024'],
    ['EEEE MMMM', 'Tuesday March'],
    ['hh:mm a', '07:08 AM'],
    ['D u Z', '65 2 +0000'],
    ["'at' HH 'o''clock' ''", "at 07 o'clock '"],
    ['z', 'UTC'],
  ])('%s in UTC', (pattern, expected) => {
    expect(compileDateFormat(pattern, 'UTC')(t)).toBe(expected);
  });

  test('time zones: Europe/Paris in winter and summer, America/New_York', () => {
    expect(compileDateFormat('yyyy-MM-dd HH:mm:ss,SSS Z', 'Europe/Paris')(t)).toBe('2024-03-05 08:08:09,012 +0100');
    expect(compileDateFormat('HH:mm XXX', 'Europe/Paris')(new Date(Date.UTC(2024, 6, 1, 12, 0)))).toBe('14:00 +02:00');
    expect(compileDateFormat('yyyy-MM-dd HH:mm X', 'America/New_York')(t)).toBe('2024-03-05 02:08 -05');
  });

  test('local zone uses the process time zone', () => {
    const local = compileDateFormat('yyyy-MM-dd HH:mm:ss,SSS')(t);
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    expect(local).toBe(
      `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())},${pad(t.getMilliseconds(), 3)}`,
    );
  });

  test('unknown letters, open quotes and unknown zones are rejected', () => {
    expect(() => compileDateFormat('yyyy-QQ')).toThrow(/unknown date pattern letter 'Q'/);
    expect(() => compileDateFormat("HH 'open")).toThrow(/unterminated quote/);
    expect(() => compileDateFormat('HH', 'Mars/Olympus')).toThrow(/unknown time zone 'Mars\/Olympus'/);
  });
});
