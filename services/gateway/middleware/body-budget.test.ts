import { describe, expect, it } from 'vitest';
import { BodyBudget } from './body-budget.js';

describe('BodyBudget', () => {
  it('grants reservations up to its limit and refuses the one that would pass it', () => {
    const budget = new BodyBudget(100);
    expect(budget.tryReserve(60)).toBe(true);
    expect(budget.tryReserve(41)).toBe(false);
    expect(budget.heldBytes).toBe(60);
    expect(budget.tryReserve(40)).toBe(true);
    budget.release(60);
    expect(budget.heldBytes).toBe(40);
  });

  it('never goes below zero on a double release', () => {
    const budget = new BodyBudget(10);
    budget.release(5);
    expect(budget.heldBytes).toBe(0);
    expect(budget.tryReserve(-1)).toBe(false);
  });
});
