//! The gateway (being written).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::interceptor::Interceptor;
use super::stdio::{ProxyError, ServerCommand};

/// Runs the gateway.
pub async fn run(
    _interceptor: Arc<Interceptor>,
    _servers: &BTreeMap<String, ServerCommand>,
) -> Result<(), ProxyError> {
    Err(ProxyError::Config("gateway not ready".into()))
}
