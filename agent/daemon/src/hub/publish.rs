//! The publisher's side of the hub: `POST /v1/sets/{name}` with a signed set
//! file (`crawlsieve labels publish`).

/// Uploads `body` (a signed set file) as the next version of `name`; the
/// hub's answer (the version's JSON) on success.
pub fn publish(
    hub: &str,
    name: &str,
    token: &str,
    ca_file: Option<&std::path::Path>,
    body: Vec<u8>,
) -> anyhow::Result<String> {
    let client = crate::tls::client(ca_file)?.build()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let url = format!("{}/v1/sets/{}", hub.trim_end_matches('/'), name);
    let (status, text) = rt.block_on(async {
        let resp = client
            .post(&url)
            .bearer_auth(token)
            .body(body)
            .send()
            .await?;
        anyhow::Ok((resp.status(), resp.text().await?))
    })?;
    anyhow::ensure!(status.is_success(), "POST {url}: {status}: {}", text.trim());
    Ok(text.trim().to_string())
}
