//! One file per routed page.

pub mod account;
pub mod acls;
pub mod audit;
pub mod brokers;
pub mod cluster;
pub mod clusters;
pub mod connector_offsets;
pub mod connectors;
pub mod data;
pub mod flow;
pub mod group;
pub mod group_changes;
pub mod groups;
pub mod not_found;
pub mod processors;
pub mod produce;
pub mod quotas;
pub mod replications;
pub mod schema_changes;
pub mod schemas;
pub mod subject;
pub mod topic;
pub mod topic_changes;
pub mod topic_config;
pub mod topics;
pub mod users;
