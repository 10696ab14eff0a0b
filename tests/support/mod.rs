//! Test helpers shared by integration tests.

pub(crate) mod redis_server;
