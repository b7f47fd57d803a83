import { describe, expect, it } from 'vitest';
import { keyspaceReplication, SINGLE_NODE_REPLICATION } from './migrate.js';

describe('keyspaceReplication', () => {
  it('When one replica is configured (the single local node), then the keyspace keeps SimpleStrategy RF 1', () => {
    expect(keyspaceReplication(1, 'datacenter1')).toBe(SINGLE_NODE_REPLICATION);
    expect(SINGLE_NODE_REPLICATION).toBe("{'class': 'SimpleStrategy', 'replication_factor': 1}");
  });

  it('When three replicas are configured (the cluster), then they are placed by NetworkTopologyStrategy in the local datacenter', () => {
    expect(keyspaceReplication(3, 'datacenter1')).toBe("{'class': 'NetworkTopologyStrategy', 'datacenter1': 3}");
  });

  it('When the datacenter name could break the statement, then it is refused', () => {
    expect(() => keyspaceReplication(3, "dc1': 1, 'x")).toThrow(/datacenter/);
  });
});
