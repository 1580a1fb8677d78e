import { toRfc3339 } from '../../db/time.js';
import { addDays, clockText, instantOf, localTime, SHOP_TIME_ZONE, weekdayOf } from '../../infra/shop-time.js';

// A shop's schedule: regular hours per weekday, dated exceptions (a holiday closed all day, a short
// day), and from them whether the shop is open at an instant and when that next changes. Hours are
// local (Europe/Tallinn) and lie within one day: 24:00 closes at midnight, and a shop open until
// midnight and again from 00:00 the next day is open through the night (no change at midnight).

export interface Hours {
  opensMinute: number;
  closesMinute: number;
}

export interface ScheduleException {
  day: string;
  /** Null: closed all day. */
  hours: Hours | null;
  names: Record<string, string>;
}

export interface ScheduleData {
  /** ISO weekday (1 = Monday) -> hours; a missing weekday is closed. */
  weekly: Map<number, Hours>;
  exceptions: Map<string, ScheduleException>;
}

/** How far ahead the next change is looked for: a shop closed longer than a year has none. */
const HORIZON_DAYS = 370;
/** Exceptions listed in the answer: the next ones from today. */
const EXCEPTIONS_LISTED = 60;

/** The hours of a local date: its exception if it has one, else its weekday's. */
function hoursOn(data: ScheduleData, date: string): Hours | null {
  const exception = data.exceptions.get(date);
  if (exception) return exception.hours;
  return data.weekly.get(weekdayOf(date)) ?? null;
}

/** The instants [opens, closes) of a local date, or null when closed. */
function intervalOn(data: ScheduleData, date: string): [number, number] | null {
  const hours = hoursOn(data, date);
  if (!hours || hours.closesMinute <= hours.opensMinute) return null;
  return [instantOf(date, hours.opensMinute), instantOf(date, hours.closesMinute)];
}

export interface OpenState {
  openNow: boolean;
  /** The next instant the shop opens (when closed) or closes (when open); null beyond the horizon. */
  nextChange: { at: number; opens: boolean } | null;
}

export function openState(data: ScheduleData, now: number): OpenState {
  const today = localTime(now).date;
  // Yesterday too: its interval may still hold `now` in the repeated autumn hour.
  for (let day = -1; day <= HORIZON_DAYS; day += 1) {
    const date = addDays(today, day);
    const interval = intervalOn(data, date);
    if (!interval) continue;
    const [opens, closes] = interval;
    if (closes <= now) continue;
    if (opens > now) return { openNow: false, nextChange: { at: opens, opens: true } };
    return { openNow: true, nextChange: closingAfter(data, date, closes) };
  }
  return { openNow: false, nextChange: null };
}

/** When the shop open on `date` until `closes` really closes: later if the next day opens at that instant. */
function closingAfter(data: ScheduleData, date: string, closes: number): { at: number; opens: boolean } | null {
  let end = closes;
  for (let day = 1; day <= HORIZON_DAYS; day += 1) {
    const interval = intervalOn(data, addDays(date, day));
    if (!interval || interval[0] !== end) return { at: end, opens: false };
    end = interval[1];
  }
  return null;
}

const hoursText = (hours: Hours | null) => ({
  opens: hours ? clockText(hours.opensMinute) : null,
  closes: hours ? clockText(hours.closesMinute) : null,
});

/** The schedule as the front-end shows it, with the state at `now`; names in the first of `languages`. */
export function scheduleView(shopCode: string, data: ScheduleData, now: number, languages: string[]) {
  const today = localTime(now).date;
  const state = openState(data, now);
  const name = (names: Record<string, string>) => languages.map((language) => names[language]).find((text) => text !== undefined) ?? null;
  const upcoming = [...data.exceptions.values()]
    .filter((exception) => exception.day >= today)
    .sort((a, b) => a.day.localeCompare(b.day))
    .slice(0, EXCEPTIONS_LISTED);
  return {
    shopCode,
    timeZone: SHOP_TIME_ZONE,
    openNow: state.openNow,
    nextChange: state.nextChange ? { at: toRfc3339(state.nextChange.at), opens: state.nextChange.opens } : null,
    today: { date: today, closed: hoursOn(data, today) === null, ...hoursText(hoursOn(data, today)) },
    weekdays: [1, 2, 3, 4, 5, 6, 7].map((weekday) => {
      const hours = data.weekly.get(weekday) ?? null;
      return { weekday, closed: hours === null, ...hoursText(hours) };
    }),
    exceptions: upcoming.map((exception) => ({
      date: exception.day,
      closed: exception.hours === null,
      ...hoursText(exception.hours),
      name: name(exception.names),
    })),
  };
}
