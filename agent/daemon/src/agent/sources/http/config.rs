/// `kind = "http"`: pages posted to `POST /v1/pages` on `agent.listen`. It has
/// no keys of its own: the listener's (`agent.listen`, `agent.tls`) and the
/// token (`agent.ingest_token_file`) are the agent's.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {}
