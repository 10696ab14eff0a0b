//! Test helpers shared by integration tests.

pub(crate) mod redis_server;
#[allow(dead_code)]
pub(crate) mod serve;
