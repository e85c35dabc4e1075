//! The one HTTP client of the hub's protocol (`crawlsieve_core::labels::protocol`):
//! the follower (`agent::follow`) long-polls and downloads through it, the
//! publisher (`crawlsieve labels publish`) uploads through it, the agent's
//! counts (`agent::counts`) are sent through it. It knows the
//! hub's address, the bearer token and the TLS roots; the paths are the
//! protocol's.

use crate::auth::Token;
use crawlsieve_core::labels::protocol::{paths, AGENT_HEADER, BATCH_HEADER};
use std::path::Path;

pub struct HubClient {
    http: reqwest::Client,
    base: String,
    token: Option<Token>,
}

impl HubClient {
    /// A client of the hub at `base` (`https://hub.example:7800`), trusting
    /// `ca_file`'s roots beside the system's; `timeouts` sets what a request
    /// may take (the follower's long-polls take longer than the wait).
    pub fn new(
        base: &str,
        token: Option<Token>,
        ca_file: Option<&Path>,
        timeouts: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder,
    ) -> anyhow::Result<HubClient> {
        Ok(HubClient {
            http: timeouts(crate::tls::client(ca_file)?).build()?,
            base: base.trim_end_matches('/').to_string(),
            token,
        })
    }

    /// The hub's address (for messages).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// A request to `path` on the hub, with the token when there is one.
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let req = self.http.request(method, format!("{}{path}", self.base));
        match &self.token {
            Some(t) => req.bearer_auth(t.secret()),
            None => req,
        }
    }

    pub async fn get(&self, path: &str) -> reqwest::Result<reqwest::Response> {
        self.request(reqwest::Method::GET, path).send().await
    }

    /// The body of a successful `GET path`; otherwise the status and the hub's reason.
    pub async fn bytes(&self, path: &str) -> anyhow::Result<Vec<u8>> {
        let resp = self.get(path).await?;
        let status = resp.status();
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            anyhow::bail!("GET {path}: {status}: {}", text.trim());
        }
        Ok(resp.bytes().await?.to_vec())
    }

    /// Uploads `body` (a signed set file, or a text list) as the next version
    /// of set `name`; the hub's answer (the version's JSON) on success.
    pub async fn publish(&self, name: &str, body: Vec<u8>) -> anyhow::Result<String> {
        let path = paths::set(name);
        let resp = self
            .request(reqwest::Method::POST, &path)
            .body(body)
            .send()
            .await?;
        let (status, text) = (resp.status(), resp.text().await?);
        anyhow::ensure!(
            status.is_success(),
            "POST {}{path}: {status}: {}",
            self.base,
            text.trim()
        );
        Ok(text.trim().to_string())
    }

    /// Sends batch `batch` of agent `agent`'s counts of set `name`: the
    /// hub's status and answer, for the caller to tell a batch taken from
    /// one refused (kept aside) and one to send again.
    pub async fn post_counts(
        &self,
        name: &str,
        agent: &str,
        batch: u64,
        body: Vec<u8>,
    ) -> reqwest::Result<(reqwest::StatusCode, String)> {
        let resp = self
            .request(reqwest::Method::POST, &paths::counts(name))
            .header(AGENT_HEADER, agent)
            .header(BATCH_HEADER, batch.to_string())
            .body(body)
            .send()
            .await?;
        let status = resp.status();
        Ok((status, resp.text().await.unwrap_or_default()))
    }
}
