/**
 * A value kept on an object the object's own code cannot see: a class private field, put on
 * any object by a base constructor that returns it (the object is "constructed" again).
 *
 * It goes with that object only: JSON.stringify, a spread (`{ ...message }`), Object.keys and
 * structuredClone all leave it out, so a copy of a message is another message. Not
 * `Object.defineProperty` with a symbol, which did the same at twice the cost (a property
 * descriptor read on every call, 0.2-0.3 µs; the reader and the rules set one on nearly every
 * message), and not a WeakMap, whose values V8's young-generation collector treats as alive.
 */

export interface HiddenField<T> {
  /** The value on `target`, or undefined (also for a value that is not an object). */
  get(target: unknown): T | undefined;
  /** Sets the value on `target` (an object), replacing any it had. */
  set(target: object, value: T): void;
}

/** The constructor that makes `this` the object it is given, so a subclass can add its private field to it. */
class Returning {
  constructor(target: object) {
    return target;
  }
}

/** A new hidden field: each call makes its own, which no other can read. */
export function hiddenField<T>(): HiddenField<T> {
  class Holder extends Returning {
    #value: T;
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }
    static get(target: unknown): T | undefined {
      return typeof target === 'object' && target !== null && #value in target ? (target as Holder).#value : undefined;
    }
    static set(target: object, value: T): void {
      if (#value in target) (target as Holder).#value = value;
      else new Holder(target, value);
    }
  }
  return { get: Holder.get, set: Holder.set };
}
