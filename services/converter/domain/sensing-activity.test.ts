import { describe, expect, it } from 'vitest';
import { State, Transition } from '../../../shared/events/index.js';
import { storedEntry } from '../../../test/helpers/converter/stored-entry.js';
import { sensingActivity } from './sensing-activity.js';

const stored = storedEntry;

describe('sensingActivity', () => {
  it('When a batch holds locations, motion and transitions, then each user gets the newest of each by data.ts', () => {
    const facts = sensingActivity([
      stored('a', 'background/location', 100),
      stored('a', 'background/motion_activity', 400),
      stored('a', 'statemachine/transition', 300, { curr_state: State.TRACKING_STOPPED }),
      stored('a', 'statemachine/transition', 200, { curr_state: State.ONGOING_TRIP }),
      stored('a', 'background/filtered_location', 150),
      stored('b', 'background/battery', 50),
    ]);
    expect(facts).toEqual([
      {
        userId: 'a',
        lastDataTs: 400,
        lastLocationTs: 150,
        lastState: { state: State.TRACKING_STOPPED, ts: 300 },
      },
      { userId: 'b', lastDataTs: 50, lastLocationTs: undefined, lastState: undefined },
    ]);
  });

  it('When an entry has no time or a transition no state, then it says nothing of the phone', () => {
    const facts = sensingActivity([
      stored('a', 'background/location', null),
      stored('a', 'statemachine/transition', 10, { curr_state: 'not a state' }),
    ]);
    expect(facts).toEqual([{ userId: 'a', lastDataTs: 10, lastLocationTs: undefined, lastState: undefined }]);
  });

  it('When the participant turns tracking off, then the state is the one the transition leaves, not the one it found', () => {
    // A stop is recorded with the state the phone was in (waiting at a place); tracking is off after it.
    const [facts] = sensingActivity([
      stored('a', 'statemachine/transition', 500, {
        curr_state: State.WAITING_FOR_TRIP_START,
        transition: Transition.STOP_TRACKING,
      }),
    ]);
    expect(facts?.lastState).toEqual({ state: State.TRACKING_STOPPED, ts: 500 });
  });

  it('When a batch holds labels and a survey answer, then the newest time the participant wrote one is kept', () => {
    const label = (writeTs: number, key = 'manual/mode_confirm') => ({ ...stored('a', key, null), writeTs });
    const [facts] = sensingActivity([label(700), label(900, 'manual/trip_user_input'), label(800)]);
    expect(facts).toMatchObject({ userId: 'a', lastLabelTs: 900, lastDataTs: undefined });
  });
});
