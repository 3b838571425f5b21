//! Integration tests against the real Kafka of the local dev stack, `dev/stack` (started by
//! `make integration`). Each test makes its own topics and clusters so tests never share state.
//! One module per capability; `support` holds the helpers they share.

mod support;

mod acls;
mod assets;
mod audit;
mod audit_trust;
mod broker_configs;
mod catalog;
mod changes;
mod config_check;
mod connect;
mod connect_effects;
mod connect_offsets;
mod copy;
mod expressions;
mod group_changes;
mod groups;
mod masking;
mod mcp;
mod metrics;
mod processors;
mod produce;
mod quotas;
mod records;
mod registry;
mod replication;
mod replications;
mod schema_changes;
mod search;
mod security;
mod sign_in;
mod sizes;
mod topics;
mod topology;
mod users;
