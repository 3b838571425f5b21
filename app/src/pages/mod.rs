//! One file per routed page.

pub mod account;
pub mod cluster;
pub mod clusters;
pub mod not_found;
pub mod topic;
pub mod topics;
