// The authorization matrix: every write klens offers, once. Each later write adds a row here, and
// matrix.spec.ts checks for every row and every cluster that the UI shows the action exactly when
// the API accepts it, and that the API refuses with the contract's code otherwise.

export interface WriteRow {
  /** The server function. */
  api: string;
  /** The privilege, as /api/whoami spells it. */
  privilege: string;
  /** The page that offers the action, and the accessible name of its button. */
  page: (cluster: string) => string;
  button: string;
  /** A request body that passes every check but Kafka's when allowed. */
  body: (cluster: string) => Record<string, unknown>;
  /** The status of that request when allowed (it may fail in Kafka, but not in authorization). */
  allowedStatus: number;
  /** The button opens a form where the resource is chosen (Create topic): it is offered to a
   * caller who holds the privilege on some resources, even when the body's resource is not one. */
  chosenInForm?: boolean;
  /** The button also serves writes to other clusters (Copy / redrive picks its target cluster):
   * it is offered to a caller who may read here (RECORDS) and write on some writable cluster. */
  offeredFromAnyCluster?: boolean;
  /** Undoes an allowed call, so the matrix leaves the cluster as it found it. It goes through
   * the instance without sign-in, since the user under test may lack the undoing privilege. */
  cleanUp?: (body: Record<string, unknown>) => Promise<void>;
}

/** The instance without sign-in, where every privilege is held. */
const OPEN_URL = process.env.KLENS_URL ?? 'http://127.0.0.1:18080';

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now()}-${counter++}`;

export const writes: WriteRow[] = [
  {
    api: 'create_topic',
    privilege: 'CREATE_TOPICS',
    page: (c) => `/c/${c}/topics`,
    button: 'Create topic',
    body: (c) => ({ cluster: c, topic: unique('e2e-matrix'), partitions: 1 }),
    allowedStatus: 200,
    chosenInForm: true,
    cleanUp: async (body) => {
      const res = await fetch(`${OPEN_URL}/api/delete_topic`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ cluster: body.cluster, topic: body.topic }),
      });
      if (res.status !== 200) throw new Error(`clean-up of ${body.topic} failed: ${res.status}`);
    },
  },
  {
    api: 'delete_topic',
    privilege: 'DELETE_TOPICS',
    // The seeded `orders` topic shows the button; the API call names a topic that does not
    // exist, so an allowed call ends in Kafka's NOT_FOUND and deletes nothing.
    page: (c) => `/c/${c}/topics/orders`,
    button: 'Delete topic',
    body: (c) => ({ cluster: c, topic: unique('e2e-absent') }),
    allowedStatus: 404,
  },
  {
    api: 'alter_topic_configs',
    privilege: 'ALTER_TOPIC_CONFIGS',
    // A dry run: Kafka validates the override and nothing changes.
    page: (c) => `/c/${c}/topics/orders/configuration`,
    button: 'Edit configuration',
    body: (c) => ({ cluster: c, topic: 'orders', set: { 'retention.ms': '86400000' }, dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'add_partitions',
    privilege: 'ADD_PARTITIONS',
    // A dry run of one partition more than `orders` has: Kafka validates, nothing is added.
    page: (c) => `/c/${c}/topics/orders`,
    button: 'Add partitions',
    body: (c) => ({ cluster: c, topic: 'orders', count: 7, dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'delete_records',
    privilege: 'DELETE_RECORDS',
    // A preview: it reads the watermarks and deletes nothing.
    page: (c) => `/c/${c}/topics/orders`,
    button: 'Delete records',
    body: (c) => ({ cluster: c, topic: 'orders', all: true, dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'reset_offsets',
    privilege: 'RESET_OFFSETS',
    // The plan of a reset of the seeded group, which has no members: nothing is committed.
    page: (c) => `/c/${c}/groups/customer-sync`,
    button: 'Reset offsets',
    body: (c) => ({ cluster: c, group: 'customer-sync', to: 'latest', dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'delete_offsets',
    privilege: 'DELETE_OFFSETS',
    // The page of a seeded group shows the button; the call names a group that does not exist,
    // so an allowed call ends in NOT_FOUND and deletes nothing.
    page: (c) => `/c/${c}/groups/customer-sync`,
    button: 'Delete offsets',
    body: (c) => ({ cluster: c, group: unique('e2e-absent'), topic: 'orders' }),
    allowedStatus: 404,
  },
  {
    api: 'delete_group',
    privilege: 'DELETE_GROUPS',
    page: (c) => `/c/${c}/groups/customer-sync`,
    button: 'Delete group',
    body: (c) => ({ cluster: c, group: unique('e2e-absent') }),
    allowedStatus: 404,
  },
  {
    api: 'produce',
    privilege: 'PRODUCE',
    // A dry run: klens says where the record would go and writes nothing.
    page: (c) => `/c/${c}/topics/orders`,
    button: 'Produce record',
    body: (c) => ({ cluster: c, topic: 'orders', key: { encoding: 'text', data: 'k' }, value: { encoding: 'text', data: 'x' }, dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'copy_records',
    privilege: 'PRODUCE',
    // A dry run copying some orders into big-orders on the same cluster: nothing is written.
    page: (c) => `/c/${c}/topics/orders/data`,
    button: 'Copy / redrive',
    body: (c) => ({ cluster: c, topic: 'orders', target_topic: 'big-orders', limit: 10, dry_run: true }),
    allowedStatus: 200,
    offeredFromAnyCluster: true,
  },
  {
    api: 'register_schema',
    privilege: 'REGISTER_SCHEMAS',
    // A dry run on a new subject: the registry judges, nothing is registered.
    page: (c) => `/c/${c}/schemas/payments-avro-value`,
    button: 'Register a new version',
    body: (c) => ({ cluster: c, subject: unique('e2e-matrix-subject'), schema: '{"type":"string"}', dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'set_compatibility',
    privilege: 'SET_COMPATIBILITY',
    // A dry run: the answer says what the level would become, and nothing changes.
    page: (c) => `/c/${c}/schemas/payments-avro-value`,
    button: 'Change compatibility',
    body: (c) => ({ cluster: c, subject: 'payments-avro-value', compatibility: 'FULL', dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'delete_schema',
    privilege: 'DELETE_SCHEMAS',
    // The seeded subject's page shows the button; the call names a subject the registry lacks,
    // so an allowed call ends in NOT_FOUND and deletes nothing.
    page: (c) => `/c/${c}/schemas/payments-avro-value`,
    button: 'Delete subject',
    body: (c) => ({ cluster: c, subject: unique('e2e-absent') }),
    allowedStatus: 404,
  },
  {
    api: 'create_acl',
    privilege: 'CREATE_ACLS',
    // A dry run: klens judges the binding and says what it does; nothing is created.
    page: (c) => `/c/${c}/acls`,
    button: 'Create ACL',
    body: (c) => ({ cluster: c, principal: 'User:e2e-matrix', resource_type: 'topic', resource_name: 'orders', operation: 'read', dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'delete_acl',
    privilege: 'DELETE_ACLS',
    // The seeded binding's row shows the button; the call names a binding Kafka does not hold,
    // so an allowed call ends in NOT_FOUND and deletes nothing.
    page: (c) => `/c/${c}/acls`,
    button: 'Delete ACL: User:alice may READ the topic orders from any host',
    body: (c) => ({ cluster: c, principal: `User:${unique('e2e-absent')}`, resource_type: 'topic', resource_name: 'orders', operation: 'read' }),
    allowedStatus: 404,
  },
  {
    api: 'set_scram_credential',
    privilege: 'SET_SCRAM_CREDENTIALS',
    // A dry run: the arguments are judged and no credential is set.
    page: (c) => `/c/${c}/users`,
    button: 'Add user',
    body: (c) => ({ cluster: c, user: unique('e2e-matrix-user'), password: 'not used', dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'delete_scram_credential',
    privilege: 'DELETE_SCRAM_CREDENTIALS',
    // The seeded user's row shows the button; the call names a user without credentials, so an
    // allowed call ends in NOT_FOUND and deletes nothing.
    page: (c) => `/c/${c}/users`,
    button: 'Delete the SCRAM-SHA-512 credential of reporting',
    body: (c) => ({ cluster: c, user: unique('e2e-absent'), mechanism: 'SCRAM-SHA-512' }),
    allowedStatus: 404,
  },
  {
    api: 'alter_broker_config',
    privilege: 'ALTER_BROKER_CONFIGS',
    // A dry run: Kafka validates the broker's new value and nothing changes.
    page: (c) => `/c/${c}/brokers/1/configuration`,
    button: 'Edit configuration',
    body: (c) => ({ cluster: c, broker: 1, set: { 'log.cleaner.delete.retention.ms': '90000000' }, dry_run: true }),
    allowedStatus: 200,
  },
  {
    api: 'alter_quota',
    privilege: 'ALTER_QUOTAS',
    // A dry run: Kafka validates the quota and none is set.
    page: (c) => `/c/${c}/quotas`,
    button: 'Set quota',
    body: (c) => ({ cluster: c, entity: [{ type: 'user', name: unique('e2e-matrix-quota') }], set: { producer_byte_rate: 1048576 }, dry_run: true }),
    allowedStatus: 200,
  },
  // The connector changes, on dev/seed's FileStream sink on dev/stack's Connect worker: what an
  // allowed call changes, its clean-up puts back (and Connect's own status is what it reads).
  ...connectorRows(),
  ...replicationRows(),
  ...processorRows(),
];

/** Waits until Connect itself says the seeded sink and its tasks run again, so that the next
 * change starts from a settled connector (Connect refuses changes mid-restart). */
async function settled(body: Record<string, unknown>) {
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`http://127.0.0.1:18083/connectors/${body.name}/status`);
    const status = res.ok ? await res.json() : undefined;
    const tasks: { state: string }[] = status?.tasks ?? [];
    if (status?.connector?.state === 'RUNNING' && tasks.length > 0 && tasks.every((t) => t.state === 'RUNNING')) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${body.name} did not run again`);
}

/** Resumes the seeded sink through the instance without sign-in, and waits until it runs. */
async function resumeSink(body: Record<string, unknown>) {
  const res = await fetch(`${OPEN_URL}/api/resume_connector`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cluster: body.cluster, connect: body.connect, name: body.name }),
  });
  if (res.status !== 200) throw new Error(`resuming ${body.name} failed: ${res.status}`);
  await settled(body);
}

/** A sink's config on the seeded topic, of a class dev/demo-config allows (dev/stack's own
 * dev connectors: FileStream never runs as a connector made through klens). */
const sinkConfig = {
  'connector.class': 'dev.klens.connect.DiscardSinkConnector',
  'tasks.max': '1',
  topics: 'connect-lines',
};

function connectorRows(): WriteRow[] {
  const page = (c: string) => `/c/${c}/connectors/dev-connect/demo-lines-sink`;
  const sink = (c: string) => ({ cluster: c, connect: 'dev-connect', name: 'demo-lines-sink' });
  const row = (api: string, button: string, extra: Partial<WriteRow> = {}): WriteRow => ({
    api,
    privilege: 'MANAGE_CONNECTORS',
    page,
    button,
    body: sink,
    allowedStatus: 200,
    ...extra,
  });
  return [
    // A task first, while the seeded sink has its tasks; a stop (which takes them away until
    // the resume) comes last of the changes that touch it.
    row('restart_task', 'Restart task 0', { body: (c) => ({ ...sink(c), task: 0 }), cleanUp: settled }),
    row('restart_connector', 'Restart', { cleanUp: settled }),
    row('resume_connector', 'Resume', { cleanUp: settled }),
    row('pause_connector', 'Pause', { cleanUp: resumeSink }),
    row('stop_connector', 'Stop', { cleanUp: resumeSink }),
    // Dry runs: Connect validates the config and nothing is created or changed.
    row('create_connector', 'Create connector', {
      page: (c) => `/c/${c}/connectors`,
      body: (c) => ({ cluster: c, connect: 'dev-connect', name: unique('e2e-matrix-connector'), config: sinkConfig, dry_run: true }),
      chosenInForm: true,
    }),
    row('update_connector', 'Edit config', { body: (c) => ({ ...sink(c), config: sinkConfig, dry_run: true }) }),
    // A dry run: the plan of removing the seeded sink's offsets, which Connect would refuse
    // while it runs; nothing changes.
    row('reset_connector_offsets', 'Reset offsets', { body: (c) => ({ ...sink(c), dry_run: true }) }),
    // The call names a connector that does not exist: an allowed call ends in NOT_FOUND.
    row('delete_connector', 'Delete connector', {
      body: (c) => ({ ...sink(c), name: unique('e2e-absent-connector') }),
      allowedStatus: 404,
    }),
  ];
}

/** dev/seed's replication from remote into local, and what a change to it names. */
function replicationRows(): WriteRow[] {
  const page = (c: string) => `/c/${c}/replications/demo-eu`;
  // Each change names a replication that does not exist: allowed, it ends in NOT_FOUND and
  // the seeded one keeps running.
  const absent = (c: string) => ({ cluster: c, name: unique('e2e-absent-replication') });
  // The cluster copies from itself under prefix naming: every instance of the suite has the
  // cluster (the sign-in one has no `remote`), and REPLICATE_FROM is decided on it.
  const spec = (c: string) => ({
    cluster: c, source: c, connect: 'dev-connect', topics: ['eu-*'], groups: ['eu-*'], dry_run: true,
  });
  const row = (api: string, privilege: string, button: string, extra: Partial<WriteRow> = {}): WriteRow => ({
    api,
    privilege,
    page,
    button,
    body: absent,
    allowedStatus: 404,
    ...extra,
  });
  return [
    // Dry runs: checked, validated by Connect, nothing created or changed.
    row('create_replication', 'MANAGE_REPLICATIONS', 'Create replication', {
      page: (c) => `/c/${c}/replications`,
      body: (c) => ({ ...spec(c), name: unique('e2e-matrix-replication') }),
      allowedStatus: 200,
      chosenInForm: true,
    }),
    // After the four checks, a replication that does not exist: NOT_FOUND, nothing changed.
    row('update_replication', 'MANAGE_REPLICATIONS', 'Edit replication', {
      body: (c) => ({ ...spec(c), name: unique('e2e-absent-replication') }),
    }),
    row('pause_replication', 'MANAGE_REPLICATIONS', 'Pause'),
    row('resume_replication', 'MANAGE_REPLICATIONS', 'Resume'),
    row('delete_replication', 'MANAGE_REPLICATIONS', 'Delete replication'),
    row('failover_group', 'REPLICATION_OFFSETS', 'Fail over eu-billing', {
      body: (c) => ({ ...absent(c), group: 'eu-billing', dry_run: true }),
    }),
  ];
}

/** The SQL processors: the page of the processor end2end/run has the open instance create
 * (dev/demo-processor's big-orders), and changes that name one that does not exist. */
function processorRows(): WriteRow[] {
  const page = (c: string) => `/c/${c}/processors/big-orders`;
  // Allowed, each ends in NOT_FOUND and big-orders keeps running.
  const absent = (c: string) => ({ cluster: c, name: unique('e2e-absent-processor'), parallelism: 2 });
  const row = (api: string, button: string, extra: Partial<WriteRow> = {}): WriteRow => ({
    api,
    privilege: 'MANAGE_SQL_PROCESSORS',
    page,
    button,
    body: absent,
    allowedStatus: 404,
    ...extra,
  });
  return [
    // A preview: Flink plans it and runs a bounded query that writes nowhere.
    row('create_processor', 'New processor', {
      page: (c) => `/c/${c}/processors`,
      body: (c) => ({
        cluster: c,
        name: unique('e2e-matrix-processor'),
        sql: 'INSERT INTO `big-orders` SELECT order_id, total FROM `orders` WHERE total > 500',
        dry_run: true,
      }),
      allowedStatus: 200,
      chosenInForm: true,
    }),
    row('stop_processor', 'Stop'),
    row('resume_processor', 'Resume'),
    row('scale_processor', 'Scale'),
    row('delete_processor', 'Delete processor'),
  ];
}
