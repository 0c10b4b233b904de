/**
 * Deleting from a map that fills and empties all run long (a rule's open frames, the ids
 * it still waits for): the caller goes on with a new, empty one when the delete emptied it.
 *
 * Why: once a map has moved to V8's old generation, every new hash table it gets, as it
 * grows and as deletes shrink it, is allocated in the old generation too, and the table it
 * replaces stays there as garbage until a full collection. The rules' maps fill and empty with
 * every turn; on 200k mixed-details messages a sampling heap profile of what full collections
 * freed found 48 MB, 22 MB of it such tables, and V8 lets that garbage grow with the run between
 * its full collections. A new map starts young, and its tables die in the young collections.
 */

/** `map` without `key`: the same map, or a new empty one when that was its last key. */
export function deleteKey<K, V>(map: Map<K, V>, key: K): Map<K, V> {
  map.delete(key);
  return map.size === 0 ? new Map<K, V>() : map;
}
