//! The privilege vocabulary, shared by the server (which checks it) and the browser (which hides
//! what it would refuse). Config spells a privilege in snake_case, the wire in SCREAMING_SNAKE_CASE.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

macro_rules! privileges {
    ($( $variant:ident => $snake:literal, $wire:literal, $write:literal; )*) => {
        /// One kind of data a caller may read, or one kind of change a caller may make.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Privilege {
            $( #[serde(rename = $wire)] $variant, )*
        }

        impl Privilege {
            /// Every privilege, reads first, in the order of the spec.
            pub const ALL: &'static [Privilege] = &[ $( Privilege::$variant, )* ];

            /// The name used in config.yaml.
            pub fn config_name(self) -> &'static str {
                match self { $( Privilege::$variant => $snake, )* }
            }

            /// The name used on the wire (`/api/whoami`, error bodies).
            pub fn wire_name(self) -> &'static str {
                match self { $( Privilege::$variant => $wire, )* }
            }

            /// Whether this privilege changes something (and so needs a writable cluster).
            pub fn is_write(self) -> bool {
                match self { $( Privilege::$variant => $write, )* }
            }

            /// Parses the config spelling (`create_topics`).
            pub fn from_config_name(name: &str) -> Option<Privilege> {
                match name { $( $snake => Some(Privilege::$variant), )* _ => None }
            }

            pub fn from_wire_name(name: &str) -> Option<Privilege> {
                match name { $( $wire => Some(Privilege::$variant), )* _ => None }
            }
        }
    };
}

privileges! {
    Records => "records", "RECORDS", false;
    TopicConfigs => "topic_configs", "TOPIC_CONFIGS", false;
    BrokerConfigs => "broker_configs", "BROKER_CONFIGS", false;
    SchemaText => "schema_text", "SCHEMA_TEXT", false;
    Acls => "acls", "ACLS", false;
    Audit => "audit", "AUDIT", false;
    Unmask => "unmask", "UNMASK", false;
    Connectors => "connectors", "CONNECTORS", false;
    Replications => "replications", "REPLICATIONS", false;
    ReplicateFrom => "replicate_from", "REPLICATE_FROM", false;
    SqlProcessors => "sql_processors", "SQL_PROCESSORS", false;
    Topology => "topology", "TOPOLOGY", false;
    CreateTopics => "create_topics", "CREATE_TOPICS", true;
    DeleteTopics => "delete_topics", "DELETE_TOPICS", true;
    AlterTopicConfigs => "alter_topic_configs", "ALTER_TOPIC_CONFIGS", true;
    AddPartitions => "add_partitions", "ADD_PARTITIONS", true;
    DeleteRecords => "delete_records", "DELETE_RECORDS", true;
    Produce => "produce", "PRODUCE", true;
    ResetOffsets => "reset_offsets", "RESET_OFFSETS", true;
    DeleteOffsets => "delete_offsets", "DELETE_OFFSETS", true;
    DeleteGroups => "delete_groups", "DELETE_GROUPS", true;
    RegisterSchemas => "register_schemas", "REGISTER_SCHEMAS", true;
    SetCompatibility => "set_compatibility", "SET_COMPATIBILITY", true;
    DeleteSchemas => "delete_schemas", "DELETE_SCHEMAS", true;
    CreateAcls => "create_acls", "CREATE_ACLS", true;
    DeleteAcls => "delete_acls", "DELETE_ACLS", true;
    AlterQuotas => "alter_quotas", "ALTER_QUOTAS", true;
    SetScramCredentials => "set_scram_credentials", "SET_SCRAM_CREDENTIALS", true;
    DeleteScramCredentials => "delete_scram_credentials", "DELETE_SCRAM_CREDENTIALS", true;
    AlterBrokerConfigs => "alter_broker_configs", "ALTER_BROKER_CONFIGS", true;
    ManageConnectors => "manage_connectors", "MANAGE_CONNECTORS", true;
    ManageReplications => "manage_replications", "MANAGE_REPLICATIONS", true;
    ReplicationOffsets => "replication_offsets", "REPLICATION_OFFSETS", true;
    ManageSqlProcessors => "manage_sql_processors", "MANAGE_SQL_PROCESSORS", true;
}

/// The only write privileges an MCP ceiling may hold. A write tool added later must not be
/// switched on by an existing config, so this list is closed rather than derived.
pub const MCP_WRITE_PRIVILEGES: &[Privilege] =
    &[Privilege::CreateTopics, Privilege::Produce, Privilege::RegisterSchemas];

/// What kind of resource a privilege is exercised on, which decides what a resource scope
/// (governance) can grant it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    Topic,
    Group,
    Subject,
    /// A Kafka Connect connector, covered by a scope through its Connect cluster and topics.
    Connector,
    /// A replication between clusters, covered by a scope through its name (and, where a
    /// change asks, its Connect cluster).
    Replication,
    /// A SQL processor, covered by a scope when every topic it reads and writes is.
    Processor,
    /// The cluster as a whole: never granted by a scoped binding.
    Cluster,
}

impl Privilege {
    /// The kind of resource this privilege applies to.
    pub fn kind(self) -> ResourceKind {
        use Privilege::*;
        match self {
            Records | TopicConfigs | CreateTopics | DeleteTopics | AlterTopicConfigs
            | AddPartitions | DeleteRecords | Produce | Unmask | Topology => ResourceKind::Topic,
            ResetOffsets | DeleteOffsets | DeleteGroups => ResourceKind::Group,
            SchemaText | RegisterSchemas | SetCompatibility | DeleteSchemas => {
                ResourceKind::Subject
            }
            Connectors | ManageConnectors => ResourceKind::Connector,
            Replications | ManageReplications | ReplicationOffsets => ResourceKind::Replication,
            SqlProcessors | ManageSqlProcessors => ResourceKind::Processor,
            ReplicateFrom
            | BrokerConfigs
            | Acls
            | Audit
            | CreateAcls
            | DeleteAcls
            | AlterQuotas
            | SetScramCredentials
            | DeleteScramCredentials
            | AlterBrokerConfigs => ResourceKind::Cluster,
        }
    }

    /// Whether `mcp.privileges` may contain this privilege. Naming a cluster as the source of
    /// a replication is a read that starts a copy, so it stays out like the writes.
    pub fn allowed_in_mcp(self) -> bool {
        (!self.is_write() && self != Privilege::ReplicateFrom)
            || MCP_WRITE_PRIVILEGES.contains(&self)
    }
}

impl fmt::Display for Privilege {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wire_name())
    }
}

/// The error of parsing a config privilege name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPrivilege(pub String);

impl fmt::Display for UnknownPrivilege {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown privilege `{}`", self.0)
    }
}

impl std::error::Error for UnknownPrivilege {}

impl FromStr for Privilege {
    type Err = UnknownPrivilege;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Privilege::from_config_name(s).ok_or_else(|| UnknownPrivilege(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_reads_and_twenty_two_writes() {
        let writes = Privilege::ALL.iter().filter(|p| p.is_write()).count();
        assert_eq!(Privilege::ALL.len() - writes, 12);
        assert_eq!(writes, 22);
    }

    #[test]
    fn names_round_trip_in_both_spellings() {
        for &p in Privilege::ALL {
            assert_eq!(Privilege::from_config_name(p.config_name()), Some(p));
            assert_eq!(Privilege::from_wire_name(p.wire_name()), Some(p));
            assert_eq!(p.wire_name(), p.config_name().to_uppercase());
            let json = serde_json::to_string(&p).expect("serialize");
            assert_eq!(json, format!("\"{}\"", p.wire_name()));
            let back: Privilege = serde_json::from_str(&json).expect("deserialize");
            assert_eq!(back, p);
        }
    }

    #[test]
    fn config_spelling_is_case_sensitive() {
        assert_eq!(Privilege::from_config_name("RECORDS"), None);
        assert!("Records".parse::<Privilege>().is_err());
    }

    #[test]
    fn ten_cluster_privileges_never_come_from_a_scope() {
        let cluster: Vec<_> = Privilege::ALL
            .iter()
            .copied()
            .filter(|p| p.kind() == ResourceKind::Cluster)
            .map(Privilege::config_name)
            .collect();
        assert_eq!(
            cluster,
            [
                "broker_configs",
                "acls",
                "audit",
                "replicate_from",
                "create_acls",
                "delete_acls",
                "alter_quotas",
                "set_scram_credentials",
                "delete_scram_credentials",
                "alter_broker_configs"
            ]
        );
    }

    #[test]
    fn mcp_accepts_reads_but_replicate_from_and_exactly_three_writes() {
        let allowed_writes: Vec<_> = Privilege::ALL
            .iter()
            .copied()
            .filter(|p| p.is_write() && p.allowed_in_mcp())
            .map(Privilege::config_name)
            .collect();
        assert_eq!(allowed_writes, ["create_topics", "produce", "register_schemas"]);
        let refused_reads: Vec<_> = Privilege::ALL
            .iter()
            .copied()
            .filter(|p| !p.is_write() && !p.allowed_in_mcp())
            .collect();
        assert_eq!(refused_reads, [Privilege::ReplicateFrom]);
    }
}
