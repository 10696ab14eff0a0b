//! Test helpers shared by integration tests.

#[allow(dead_code)]
pub(crate) mod http_echo;
#[allow(dead_code)]
pub(crate) mod load;
#[allow(dead_code)]
pub(crate) mod redis_server;
#[allow(dead_code)]
pub(crate) mod serve;
#[allow(dead_code)]
pub(crate) mod stdio_proxy;
