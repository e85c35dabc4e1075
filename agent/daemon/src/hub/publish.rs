//! The publisher's side of the hub, for the command line: `POST /v1/sets/{name}`
//! with a signed set file (`crawlsieve labels publish`), through the protocol's
//! one client (`crate::hub_client`).

use crate::auth::Token;
use crate::hub_client::HubClient;

/// Uploads `body` (a signed set file) as the next version of `name`; the
/// hub's answer (the version's JSON) on success.
pub fn publish(
    hub: &str,
    name: &str,
    token: &str,
    ca_file: Option<&std::path::Path>,
    body: Vec<u8>,
) -> anyhow::Result<String> {
    let client = HubClient::new(hub, Some(Token::new(token)), ca_file, |b| b)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(client.publish(name, body))
}
