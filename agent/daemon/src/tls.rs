//! TLS for the parts that talk across machines: the hub's and the agent's
//! HTTP servers serve HTTPS when given a certificate and a key; the agent's
//! hub clients verify the hub against a CA file or the system's roots.
//!
//! Certificates are short-lived now (90 days from ACME, hours from an
//! internal CA), so a server must take a renewed one without a restart: the
//! certificate and key are read again on `SIGHUP` and whenever either file's
//! modification time changes (checked every [`POLL`]). A pair that does not
//! load (a half-written renewal, a key that does not match) is logged and the
//! server keeps serving the pair it has: a renewal mistake never takes the
//! listener down.

use arc_swap::ArcSwap;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// How often the files' modification times are looked at.
pub const POLL: Duration = Duration::from_secs(5);

/// Where a server's certificate chain and private key are (PEM files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TlsFiles {
    /// Both or neither: `what` names the two settings in the error.
    pub fn pair(
        cert: Option<PathBuf>,
        key: Option<PathBuf>,
        what: (&str, &str),
    ) -> anyhow::Result<Option<TlsFiles>> {
        match (cert, key) {
            (Some(cert), Some(key)) => Ok(Some(TlsFiles { cert, key })),
            (None, None) => Ok(None),
            (Some(_), None) => anyhow::bail!("{}: HTTPS needs a key too ({})", what.0, what.1),
            (None, Some(_)) => {
                anyhow::bail!("{}: HTTPS needs a certificate too ({})", what.1, what.0)
            }
        }
    }
}

/// The certificate a server presents, swapped in place when the files change.
#[derive(Debug)]
pub struct Certificate {
    files: TlsFiles,
    current: ArcSwap<CertifiedKey>,
    /// The files' modification times when last loaded.
    stamp: std::sync::Mutex<(Option<SystemTime>, Option<SystemTime>)>,
}

impl ResolvesServerCert for Certificate {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.load_full())
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Reads and checks a certificate chain and its key.
fn load(files: &TlsFiles) -> anyhow::Result<CertifiedKey> {
    let chain = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| anyhow::anyhow!("certificate {}: {e}", files.cert.display()))?;
    anyhow::ensure!(
        !chain.is_empty(),
        "certificate {}: no PEM certificate in it",
        files.cert.display()
    );
    crawlsieve_core::labels::keys::check_private_file(&files.key, "TLS key")?;
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .map_err(|e| anyhow::anyhow!("TLS key {}: {e}", files.key.display()))?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| {
        anyhow::anyhow!(
            "TLS key {} with certificate {}: {e}",
            files.key.display(),
            files.cert.display()
        )
    })
}

impl Certificate {
    /// Loads the pair: a mistake here is a start-up error naming the file.
    pub fn load(files: TlsFiles) -> anyhow::Result<Arc<Certificate>> {
        let stamp = (modified(&files.cert), modified(&files.key));
        let key = load(&files)?;
        Ok(Arc::new(Certificate {
            files,
            current: ArcSwap::from_pointee(key),
            stamp: std::sync::Mutex::new(stamp),
        }))
    }

    /// Reads the pair again; on failure keeps the one it has. True when a
    /// new pair was taken.
    pub fn reload(&self) -> bool {
        let stamp = (modified(&self.files.cert), modified(&self.files.key));
        match load(&self.files) {
            Ok(key) => {
                self.current.store(Arc::new(key));
                *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) = stamp;
                tracing::info!(cert = %self.files.cert.display(), "TLS certificate loaded");
                true
            }
            Err(e) => {
                // Remember the stamp anyway: the same broken files are not retried every poll.
                *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) = stamp;
                tracing::error!(error = %e, "TLS certificate not reloaded; serving the previous one");
                false
            }
        }
    }

    fn changed(&self) -> bool {
        let now = (modified(&self.files.cert), modified(&self.files.key));
        *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) != now
    }

    /// The acceptor a server hands connections to.
    pub fn acceptor(self: &Arc<Self>) -> tokio_rustls::TlsAcceptor {
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_no_client_auth()
            .with_cert_resolver(self.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }

    /// Reloads on `SIGHUP` and when a file changes, until the process ends.
    pub async fn watch(self: Arc<Self>) {
        #[cfg(unix)]
        let mut hangup =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            #[cfg(unix)]
            let signalled = async {
                match hangup.as_mut() {
                    Some(h) => {
                        h.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let signalled = std::future::pending::<()>();
            tokio::select! {
                () = signalled => {
                    self.reload();
                }
                _ = tick.tick() => {
                    if self.changed() {
                        self.reload();
                    }
                }
            }
        }
    }
}

/// A client builder that verifies servers against `ca_file` only (PEM, one
/// or more certificates: a private CA, a self-signed hub), or against the
/// system's roots when there is none.
pub fn client(ca_file: Option<&Path>) -> anyhow::Result<reqwest::ClientBuilder> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder();
    let Some(path) = ca_file else {
        return Ok(builder);
    };
    let pem =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("CA file {}: {e}", path.display()))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| anyhow::anyhow!("CA file {}: {e}", path.display()))?;
    anyhow::ensure!(
        !certs.is_empty(),
        "CA file {}: no PEM certificate in it",
        path.display()
    );
    Ok(builder.tls_certs_only(certs))
}
