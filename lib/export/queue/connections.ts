/**
 * The long-lived connections to the broker, once probeBroker has found it: BullMQ's (Queue,
 * QueueEvents, Worker) and our own for the export registry. All of them reconnect on their own,
 * forever: a broker that goes away for a while is waited for.
 */
import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Broker } from './broker.ts';

function retrying(broker: Broker, connectionName: string | undefined): RedisOptions {
  return { ...broker.options, maxRetriesPerRequest: null, ...(connectionName === undefined ? {} : { connectionName }) };
}

/** Options for BullMQ's connections. */
export function bullConnection(broker: Broker, connectionName?: string): ConnectionOptions {
  return retrying(broker, connectionName) as ConnectionOptions;
}

/** A plain connection for our own keys; give it an 'error' listener. */
export function openClient(broker: Broker, connectionName?: string): Redis {
  return new Redis(retrying(broker, connectionName));
}
