/**
 * The Kubernetes manifests checked without a cluster: core resources and KEDA's
 * ScaledObjects against their API schemas (kubernetes-models' validate()), the operators' resources (Strimzi, K8ssandra)
 * against the fields their documentation defines, and what the project's code expects of them: its topics, groups,
 * configuration names, versions and the memory the benchmark measured.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENVIRONMENT_VARIABLES, loadConfig, refuseExposure, type Config } from '../../shared/config/index.js';
import { groupName, groups, topicName } from '../../shared/events/index.js';
import { refuseDevelopmentSecrets } from '../../services/console/auth/create-console-auth.js';
import { APICURIO_VERSION, CASSANDRA_VERSION, KAFKA_VERSION } from '../local/servers.js';
import { topicPlan } from '../provision/topics.js';

type K8s = Record<string, any>;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const GiB = 1024 ** 3;

const core: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'batch/v1/Job': Job,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};
/** The operators' kinds, checked below against the fields their documentation defines. */
const operated = [
  ...['Kafka', 'KafkaNodePool', 'KafkaTopic'].map((k) => `kafka.strimzi.io/v1/${k}`),
  'k8ssandra.io/v1alpha1/K8ssandraCluster',
];

const yamlFiles = readdirSync(here).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const docs: K8s[] = yamlFiles.flatMap((file) =>
  parseAllDocuments(readFileSync(join(here, file), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return { ...(doc.toJS() as K8s), file };
  }),
);
const kustomization = parse(readFileSync(join(here, 'kustomization.yaml'), 'utf8')) as K8s;
const typeOf = (d: K8s) => `${d['apiVersion']}/${d['kind']}`;
const all = (kind: string) => docs.filter((d) => d['kind'] === kind);
const one = (kind: string, name: string): K8s => {
  const found = docs.find((d) => d['kind'] === kind && d['metadata']?.['name'] === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const deployments = all('Deployment');
const podSpec = (workload: K8s): K8s => workload['spec']['template']['spec'];
const containersOf = (workload: K8s): K8s[] => [
  ...(podSpec(workload)['initContainers'] ?? []),
  ...podSpec(workload)['containers'],
];
/** The project's own containers: the image built from the Dockerfile, `itinera` until kustomize sets it. */
const itineraWorkloads = [...deployments, ...all('Job')].filter((w) =>
  podSpec(w)['containers'].some((c: K8s) => c['image'] === 'itinera'),
);
const env = one('ConfigMap', 'itinera-env')['data'] as Record<string, string>;
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const bytes = (quantity: string): number => {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|m|g|k)?$/.exec(quantity);
  if (!m) throw new Error(`not a memory quantity: ${quantity}`);
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: GiB, k: 1024, m: 1024 ** 2, g: GiB }[m[2] as 'Ki'] ?? 1;
  return Number(m[1]) * unit;
};
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

/** conf/ as the pods see it, loaded by the code's own loader with the environment a container gets. */
function podConfig(container: K8s): Config {
  const dir = mkdtempSync(join(tmpdir(), 'itinera-k8s-conf-'));
  try {
    cpSync(join(here, 'conf'), dir, { recursive: true });
    const literal = Object.fromEntries(
      (container['env'] ?? []).map((e: K8s) => [e['name'], e['value'] ?? `secret-of-${e['name']}`]),
    );
    return loadConfig({ confDir: dir, env: { ...env, ...literal } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the manifests as files', () => {
  it('When kustomize builds the folder, then it lists every YAML file and every conf/ file, and conf/ has every file the code reads', () => {
    expect([...(kustomization['resources'] as string[])].sort()).toEqual([...yamlFiles].sort());
    const generated = (kustomization['configMapGenerator'][0]['files'] as string[]).map((f) => f.split('=')[1] ?? '');
    const confFiles = filesUnder(join(here, 'conf'));
    expect(generated.map((f) => relative('conf', f)).sort()).toEqual(confFiles);
    expect(confFiles).toEqual(filesUnder(join(root, 'conf')));
    expect(kustomization['namespace']).toBe(one('Namespace', 'itinera')['metadata']['name']);
  });

  it('When a document is read, then it is a core or KEDA resource valid against its API schema, or an operator resource this test knows', () => {
    for (const doc of docs) {
      const { file, ...resource } = doc;
      const Model = core[typeOf(doc)];
      if (Model) expect(() => new Model(resource).validate(), `${file}: ${typeOf(doc)}`).not.toThrow();
      else expect(operated.includes(typeOf(doc)), `${file}: unexpected ${typeOf(doc)}`).toBe(true);
    }
  });

  it('When a pod mounts conf/, then it mounts every generated key at the path the code reads', () => {
    const keys = (kustomization['configMapGenerator'][0]['files'] as string[]).map(
      (f) => f.split('=') as [string, string],
    );
    for (const workload of itineraWorkloads) {
      const volume = podSpec(workload)['volumes'].find((v: K8s) => v['configMap']?.['name'] === 'itinera-conf');
      const items = volume['configMap']['items'].map((i: K8s) => [i['key'], `conf/${i['path']}`]);
      expect(items, workload['metadata']['name']).toEqual(keys);
    }
  });
});

describe('Strimzi: Kafka, node pool, topics', () => {
  const kafka = one('Kafka', 'itinera');
  const pool = all('KafkaNodePool');

  it('When the Kafka resource is read, then it is a KRaft cluster with node pools, the tested version and the durability the README asks for', () => {
    expect(kafka['apiVersion']).toBe('kafka.strimzi.io/v1');
    expect(kafka['metadata']['annotations']).toMatchObject({
      'strimzi.io/kraft': 'enabled',
      'strimzi.io/node-pools': 'enabled',
    });
    expect(kafka['spec']['zookeeper']).toBeUndefined();
    expect(kafka['spec']['kafka']['version']).toBe(KAFKA_VERSION);
    const listeners = kafka['spec']['kafka']['listeners'] as K8s[];
    expect(listeners.length).toBeGreaterThan(0);
    for (const l of listeners) {
      expect(l['name']).toMatch(/^[a-z0-9]{1,11}$/);
      expect(Number.isInteger(l['port']) && l['port'] >= 9092).toBe(true);
      expect(['internal', 'route', 'loadbalancer', 'nodeport', 'ingress', 'cluster-ip']).toContain(l['type']);
      expect(typeof l['tls']).toBe('boolean');
    }
    expect(kafka['spec']['kafka']['config']).toMatchObject({
      'default.replication.factor': 3,
      'min.insync.replicas': 2,
      'offsets.topic.replication.factor': 3,
      'transaction.state.log.min.isr': 2,
      'auto.create.topics.enable': false,
    });
    expect(kafka['spec']['entityOperator']['topicOperator']).toBeDefined();
    const plain = listeners.find((l) => !l['tls'] && l['type'] === 'internal');
    expect(env['KAFKA_BROKERS']).toBe(`${kafka['metadata']['name']}-kafka-bootstrap:${plain?.['port']}`);
  });

  it('When the node pools are read, then three nodes are both brokers and controllers on persistent storage', () => {
    expect(pool).toHaveLength(1);
    const spec = pool[0]!['spec'];
    expect(pool[0]!['metadata']['labels']['strimzi.io/cluster']).toBe(kafka['metadata']['name']);
    expect(spec['replicas']).toBe(3);
    expect([...spec['roles']].sort()).toEqual(['broker', 'controller']);
    expect(spec['storage']['type']).toBe('jbod');
    for (const v of spec['storage']['volumes']) {
      expect(Number.isInteger(v['id'])).toBe(true);
      expect(v['type']).toBe('persistent-claim');
      expect(bytes(v['size'])).toBeGreaterThan(0);
      expect(v['deleteClaim']).toBe(false);
    }
    expect(spec['storage']['volumes'].filter((v: K8s) => v['kraftMetadata'] === 'shared')).toHaveLength(1);
    expect(bytes(spec['resources']['limits']['memory'])).toBeGreaterThan(bytes(spec['jvmOptions']['-Xmx']));
  });

  it("When the code plans its topics, then each has a KafkaTopic with exactly the plan's partitions and config, replicated three times", () => {
    const config = podConfig({});
    const plan = topicPlan(config.kafka.topicPrefix, config.kafka.partitions, 3, config.retention);
    const topics = all('KafkaTopic');
    for (const t of topics) {
      expect(t['apiVersion']).toBe('kafka.strimzi.io/v1');
      expect(t['metadata']['labels']['strimzi.io/cluster']).toBe(kafka['metadata']['name']);
      expect(t['metadata']['name']).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(Number.isInteger(t['spec']['partitions']) && t['spec']['partitions'] > 0).toBe(true);
      expect(t['spec']['replicas']).toBe(3);
      expect(String(t['spec']['config']['min.insync.replicas'])).toBe('2');
    }
    for (const planned of plan) {
      const t = topics.find((k) => k['spec']['topicName'] === planned.topic);
      expect(t, planned.topic).toBeDefined();
      expect(t!['spec']['partitions']).toBe(planned.numPartitions);
      const stringified = Object.fromEntries(Object.entries(t!['spec']['config']).map(([k, v]) => [k, String(v)]));
      expect(stringified).toEqual(Object.fromEntries(planned.configEntries.map((e) => [e.name, e.value])));
    }
    const journal = one('Deployment', 'itinera-registry');
    const journalTopic = containersOf(journal)[0]!['env'].find((e: K8s) => e['name'] === 'APICURIO_KAFKASQL_TOPIC');
    expect(topics.some((t) => t['spec']['topicName'] === journalTopic['value'])).toBe(true);
  });
});

describe('K8ssandra and the keyspace', () => {
  const cluster = one('K8ssandraCluster', 'itinera');

  it("When the K8ssandraCluster is read, then it is one datacenter of three nodes of the tested version, with group commit and the converter's batch size", () => {
    expect(cluster['apiVersion']).toBe('k8ssandra.io/v1alpha1');
    const cassandra = cluster['spec']['cassandra'];
    expect(cassandra['serverVersion']).toBe(CASSANDRA_VERSION);
    expect(cassandra['datacenters']).toHaveLength(1);
    const dc = cassandra['datacenters'][0];
    expect(dc['metadata']['name']).toBe(env['CASSANDRA_LOCAL_DC']);
    expect(dc['size']).toBe(3);
    expect(
      cassandra['storageConfig']['cassandraDataVolumeClaimSpec']['resources']['requests']['storage'],
    ).toBeDefined();
    expect(cassandra['config']['cassandraYaml']).toMatchObject({
      commitlog_sync: 'group',
      batch_size_fail_threshold: '4MiB',
    });
    expect(bytes(cassandra['resources']['limits']['memory'])).toBeGreaterThanOrEqual(
      2 * bytes(cassandra['config']['jvmOptions']['heapSize']),
    );
    expect(env['CASSANDRA_CONTACT_POINTS']).toBe(
      `${cluster['metadata']['name']}-${dc['metadata']['name']}-service:9042`,
    );
  });

  it('When Cassandra demands a password, then every container of the image has the superuser Secret K8ssandra writes', () => {
    expect(cluster['spec']['auth']).toBe(true);
    const secret = `${cluster['metadata']['name']}-superuser`;
    for (const workload of itineraWorkloads)
      for (const c of containersOf(workload).filter((x) => x['image'] === 'itinera')) {
        const from = (name: string) => c['env']?.find((e: K8s) => e['name'] === name)?.['valueFrom']?.['secretKeyRef'];
        const where = `${workload['metadata']['name']}/${c['name']}`;
        expect(from('CASSANDRA_USERNAME'), where).toEqual({ name: secret, key: 'username' });
        expect(from('CASSANDRA_PASSWORD'), where).toEqual({ name: secret, key: 'password' });
        expect(podConfig(c).cassandra.credentials, where).not.toBeNull();
      }
  });

  it('When the provisioning Job runs, then the keyspace of conf/ exists first with NetworkTopologyStrategy and three replicas in the datacenter', () => {
    const job = one('Job', 'itinera-provision');
    const [init] = podSpec(job)['initContainers'];
    const statement = init['command'].at(-1) as string;
    // With authentication on, cqlsh logs in as the superuser K8ssandra writes.
    expect(init['command'].slice(5, 9)).toEqual(['-u', '$(CASSANDRA_USERNAME)', '-p', '$(CASSANDRA_PASSWORD)']);
    expect(init['env'].map((e: K8s) => e['valueFrom']?.['secretKeyRef']?.['name']).filter(Boolean)).toEqual([
      `${cluster['metadata']['name']}-superuser`,
      `${cluster['metadata']['name']}-superuser`,
    ]);
    const keyspace = podConfig({}).cassandra.keyspace;
    expect(statement).toBe(
      `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = {'class': 'NetworkTopologyStrategy', '${env['CASSANDRA_LOCAL_DC']}': 3}`,
    );
    expect(init['command'][1]).toBe(env['CASSANDRA_CONTACT_POINTS']!.split(':')[0]);
    expect(podSpec(job)['containers'][0]['command']).toEqual(['node', 'dist/deploy/provision/cli.js']);
  });
});

describe('the services', () => {
  it('When a pod runs, then it is non-root, every container has requests and a memory limit, and nothing can escalate', () => {
    for (const workload of [...deployments, ...all('Job')]) {
      const name = workload['metadata']['name'];
      expect(podSpec(workload)['securityContext']['runAsNonRoot'], name).toBe(true);
      expect(podSpec(workload)['automountServiceAccountToken'], name).toBe(false);
      for (const c of containersOf(workload)) {
        expect(c['resources']['requests']['cpu'], `${name}/${c['name']}`).toBeDefined();
        expect(c['resources']['requests']['memory'], `${name}/${c['name']}`).toBeDefined();
        expect(bytes(c['resources']['limits']['memory'])).toBeGreaterThanOrEqual(
          bytes(c['resources']['requests']['memory']),
        );
        expect(c['securityContext'], `${name}/${c['name']}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it("When a container serves HTTP, then it has liveness and readiness probes; the gateway's are /health and /ready", () => {
    for (const workload of deployments)
      for (const c of podSpec(workload)['containers'])
        if (c['ports']?.length) {
          expect(c['livenessProbe'], `${workload['metadata']['name']}`).toBeDefined();
          expect(c['readinessProbe'], `${workload['metadata']['name']}`).toBeDefined();
        }
    const gateway = podSpec(one('Deployment', 'itinera-gateway'))['containers'][0];
    expect(gateway['livenessProbe']['httpGet']['path']).toBe('/health');
    expect(gateway['readinessProbe']['httpGet']['path']).toBe('/ready');
  });

  it('When a node is drained, then every Deployment has a PodDisruptionBudget selecting its pods, and every Service selects a Deployment', () => {
    const labelsOf = (d: K8s) => d['spec']['template']['metadata']['labels'];
    for (const d of deployments)
      expect(
        all('PodDisruptionBudget').some((p) => selects(p['spec']['selector']['matchLabels'], labelsOf(d))),
        d['metadata']['name'],
      ).toBe(true);
    for (const s of all('Service'))
      expect(
        deployments.some((d) => selects(s['spec']['selector'], labelsOf(d))),
        s['metadata']['name'],
      ).toBe(true);
  });

  it('When an Ingress is read, then it has TLS from cert-manager, reaches a Service port, and never routes /health, /ready or /metrics', () => {
    for (const ing of all('Ingress')) {
      expect(ing['metadata']['annotations']['cert-manager.io/cluster-issuer']).toBeTruthy();
      const hosts = ing['spec']['rules'].map((r: K8s) => r['host']);
      expect(ing['spec']['tls'][0]['hosts']).toEqual(hosts);
      for (const rule of ing['spec']['rules'])
        for (const p of rule['http']['paths']) {
          expect(p['path']).not.toMatch(/^\/(health|ready|metrics)?$/i);
          const svc = one('Service', p['backend']['service']['name']);
          expect(svc['spec']['ports'].map((x: K8s) => x['name'])).toContain(p['backend']['service']['port']['name']);
        }
    }
    const consoleHost = one('Ingress', 'itinera-console')['spec']['rules'][0]['host'];
    expect(consoleHost).not.toBe(one('Ingress', 'itinera-gateway')['spec']['rules'][0]['host']);
    expect(podConfig({}).console.publicUrl).toBe(`https://${consoleHost}`);
  });

  it("When a worker is scaled, then KEDA reads its own group's lag on its own topic, within the topic's partitions, and owns the replica count", () => {
    const prefix = podConfig({}).kafka.topicPrefix;
    const inputs = { converter: 'usercache', tripBuilder: 'timeseries' } as const;
    for (const [id, topic] of Object.entries(inputs) as [keyof typeof groups, 'usercache' | 'timeseries'][]) {
      const deployment = deployments.find((d) =>
        podSpec(d)['containers'][0]['command']?.includes(`dist/services/${groups[id]}/main.js`),
      )!;
      const scaled = all('ScaledObject').find(
        (s) => s['spec']['scaleTargetRef']['name'] === deployment['metadata']['name'],
      )!;
      expect(scaled, id).toBeDefined();
      expect(deployment['spec']['replicas']).toBeUndefined();
      const [trigger] = scaled['spec']['triggers'];
      expect(trigger['type']).toBe('kafka');
      expect(trigger['metadata']).toMatchObject({
        bootstrapServers: env['KAFKA_BROKERS'],
        consumerGroup: groupName(prefix, id),
        topic: topicName(prefix, topic),
        offsetResetPolicy: 'earliest',
      });
      expect(Number(trigger['metadata']['lagThreshold'])).toBeGreaterThan(0);
      const partitions = all('KafkaTopic').find((t) => t['spec']['topicName'] === topicName(prefix, topic))!;
      expect(scaled['spec']['maxReplicaCount']).toBeLessThanOrEqual(partitions['spec']['partitions']);
      expect(scaled['spec']['minReplicaCount']).toBeGreaterThanOrEqual(1);
    }
  });

  it('When a container of the image starts, then its command is a compiled source, and its environment is names the config loader reads', () => {
    const read = new Set([...ENVIRONMENT_VARIABLES, 'NODE_OPTIONS']);
    for (const name of [...Object.keys(env), 'ITINERA_CONF_DIR']) expect(read, name).toContain(name);
    for (const workload of itineraWorkloads)
      for (const c of containersOf(workload).filter((x) => x['image'] === 'itinera')) {
        for (const e of c['env'] ?? [])
          expect(read, `${workload['metadata']['name']}: ${e['name']}`).toContain(e['name']);
        expect(c['envFrom']).toEqual([{ configMapRef: { name: 'itinera-env' } }]);
        const source = (c['command'][1] as string).replace(/^dist\//, '').replace(/\.js$/, '.ts');
        expect(existsSync(join(root, source)), source).toBe(true);
      }
  });

  it('When the pods load their configuration, then the loader accepts it, the console refuses no development secret, and the memory caps fit the limits', () => {
    const gateway = one('Deployment', 'itinera-gateway');
    const consoleContainer = podSpec(one('Deployment', 'itinera-console'))['containers'][0];
    const config = podConfig(consoleContainer);
    expect(config.console.oidc.devProvider).toBe(false);
    expect(config.console.host).toBe('0.0.0.0');
    expect(config.webserver.auth).not.toBe('skip');
    expect(() => refuseDevelopmentSecrets(config.console)).not.toThrow();
    // Every service starts: the only development setting left (the brokers' internal plain listener) is allowed by
    // name in the ConfigMap, and logged.
    for (const [name, component] of [
      ['itinera-gateway', 'gateway'],
      ['itinera-console', 'console'],
      ['itinera-converter', 'worker'],
      ['itinera-trip-builder', 'worker'],
    ] as const) {
      const warnings: string[] = [];
      const podSettings = podConfig(podSpec(one('Deployment', name))['containers'][0]);
      expect(() => refuseExposure(podSettings, component, (w) => warnings.push(w)), name).not.toThrow();
      expect(
        warnings.map((w) => /ITINERA_ALLOW_INSECURE=([a-z-]+)/.exec(w)?.[1]),
        name,
      ).toEqual(['kafka-plaintext']);
    }
    expect(config.kafka.brokers).toEqual([env['KAFKA_BROKERS']]);
    const secrets = consoleContainer['env'].filter((e: K8s) => e['valueFrom']);
    expect(secrets.map((e: K8s) => e['valueFrom']['secretKeyRef']['name'])).toEqual([
      'itinera-superuser',
      'itinera-superuser',
      'itinera-console',
      'itinera-console',
    ]);
    for (const workload of deployments.filter((d) => itineraWorkloads.includes(d))) {
      const [main] = podSpec(workload)['containers'];
      const heap = /--max-old-space-size=(\d+)/.exec(
        main['env'].find((e: K8s) => e['name'] === 'NODE_OPTIONS')['value'],
      );
      expect(Number(heap?.[1]) * 1024 ** 2).toBeLessThan(bytes(main['resources']['limits']['memory']));
    }
    // The benchmark's peak gateway RSS (README "Benchmark") fits what the gateway is given.
    expect(bytes(podSpec(gateway)['containers'][0]['resources']['limits']['memory'])).toBeGreaterThan(565 * 1024 ** 2);
  });

  it('When the registry is read, then it is the tested Apicurio on Kafka, where SCHEMA_REGISTRY_URL points', () => {
    const registry = one('Deployment', 'itinera-registry');
    const [c] = podSpec(registry)['containers'];
    expect(c['image']).toBe(`apicurio/apicurio-registry:${APICURIO_VERSION}`);
    expect(c['env']).toContainEqual({ name: 'APICURIO_STORAGE_KIND', value: 'kafkasql' });
    const svc = one('Service', 'itinera-registry');
    expect(env['SCHEMA_REGISTRY_URL']).toBe(
      `http://${svc['metadata']['name']}:${svc['spec']['ports'][0]['port']}/apis/ccompat/v7`,
    );
  });
});
