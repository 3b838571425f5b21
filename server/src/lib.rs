//! The klens server: everything that runs only on the server side. The binary in `main.rs` is
//! a thin shell around [`http::app`].

pub mod audit;
pub mod auth;
pub mod catalog;
pub mod config;
pub mod connect;
pub mod flink;
#[cfg(test)]
mod fuzz;
pub mod http;
pub mod jobs;
pub mod kafka;
pub mod lease;
pub mod masking;
pub mod mcp;
pub mod metrics;
pub mod own_topics;
pub mod processor;
pub mod records;
pub mod registry;
pub mod replication;
pub mod rest;
#[cfg(test)]
mod rooms;
pub mod service;
pub mod topology;
