//! What every Kafka client here asks the brokers, and how it authenticates.
//!
//! Kafka sources, sinks, count producers, discoverers and the hub's
//! announcement reader rely on the brokers' own authentication: every client
//! is made by [`client`], which adds the librdkafka properties of the file
//! `CRAWLSIEVE_KAFKA_PROPERTIES` names (one `key=value` a line, `#`
//! comments: `security.protocol=sasl_plaintext`, `sasl.mechanisms=PLAIN`,
//! `sasl.username=…`, `sasl.password=…`). The file holds a secret, so it is
//! checked like a token file (others may not write it; a warning when they
//! can read it), and its values never reach a log line.

use rdkafka::consumer::{Consumer, ConsumerContext};
use rdkafka::ClientConfig;
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable naming the properties file.
pub const PROPERTIES_ENV: &str = "CRAWLSIEVE_KAFKA_PROPERTIES";

/// The properties file, read once per process.
fn properties() -> anyhow::Result<&'static [(String, String)]> {
    static READ: OnceLock<Result<Vec<(String, String)>, String>> = OnceLock::new();
    READ.get_or_init(|| {
        let Some(path) = std::env::var_os(PROPERTIES_ENV) else {
            return Ok(Vec::new());
        };
        let path = std::path::PathBuf::from(path);
        read_properties(&path).map_err(|e| format!("{PROPERTIES_ENV}: {e:#}"))
    })
    .as_deref()
    .map_err(|e| anyhow::anyhow!("{e}"))
}

fn read_properties(path: &std::path::Path) -> anyhow::Result<Vec<(String, String)>> {
    crawlsieve_core::labels::keys::check_private_file(path, "Kafka properties file")?;
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in crawlsieve_core::labels::keys::meaningful_lines(&text) {
        // Only the key and the line number in errors: the value may be a password.
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("{} line {n}: expected key=value", path.display()))?;
        let k = k.trim();
        anyhow::ensure!(
            k != "bootstrap.servers",
            "{} line {n}: the brokers come from the configuration, not from here",
            path.display(),
        );
        out.push((k.to_string(), v.trim().to_string()));
    }
    Ok(out)
}

/// A client configuration for `brokers`, with the operator's properties.
pub fn client(brokers: &str) -> anyhow::Result<ClientConfig> {
    configured(brokers, &[])
}

/// A producer's configuration for `brokers`: [`client`]'s, with record
/// batches compressed by lz4 unless the operator's properties name another
/// `compression.type` (`none` turns it off). A count record is a SHA-1 and
/// two little-endian u64s, mostly small, and a shingle's SHA-1 field ends
/// in twelve 0xFF bytes: lz4 stores a count file of real pages in 0.31 of
/// its bytes, and the broker stores, copies and serves that much less
/// (measured in deploy/README.md, with what a discoverer pays for it).
pub fn producer(brokers: &str) -> anyhow::Result<ClientConfig> {
    configured(brokers, &[("compression.type", "lz4")])
}

/// A consumer's configuration for a group whose members hold state for
/// each partition they own (the discoverers' running totals): [`client`]'s,
/// with cooperative rebalancing unless the operator's properties name
/// another `partition.assignment.strategy`.
///
/// Why: with librdkafka's default (eager) assignment every rebalance takes
/// every partition from every member, so each one writes its whole state in
/// the revoke callback and reads it back when assigned. With gigabytes of
/// state those callbacks outlast the group's patience, and a member joining
/// a loaded group set off rebalance after rebalance (measured: a second
/// discoverer joining one that held 3.5 M keys, four rebalances in 30 s,
/// every partition's state rewritten and re-read each time). Cooperative
/// rebalancing moves only the partitions that change owner; the others
/// keep counting.
pub fn stateful_member(brokers: &str) -> anyhow::Result<ClientConfig> {
    configured(
        brokers,
        &[("partition.assignment.strategy", "cooperative-sticky")],
    )
}

/// `brokers`, then `defaults`, then the operator's properties (which win).
fn configured(brokers: &str, defaults: &[(&str, &str)]) -> anyhow::Result<ClientConfig> {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", brokers);
    for (k, v) in defaults {
        c.set(*k, *v);
    }
    for (k, v) in properties()? {
        c.set(k, v);
    }
    Ok(c)
}

/// The partitions of `topic` (none when it does not exist, or not yet).
pub fn partition_ids<C: ConsumerContext>(
    consumer: &impl Consumer<C>,
    topic: &str,
) -> rdkafka::error::KafkaResult<Vec<i32>> {
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    Ok(metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic && t.error().is_none())
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::read_properties;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn producers_compress_with_lz4_by_default() {
        let c = super::producer("127.0.0.1:9092").unwrap();
        assert_eq!(c.get("compression.type"), Some("lz4"));
        assert_eq!(
            super::client("127.0.0.1:9092")
                .unwrap()
                .get("compression.type"),
            None
        );
    }

    #[test]
    fn properties_are_read_and_their_values_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kafka.properties");
        let write = |text: &str, mode: u32| {
            std::fs::write(&p, text).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        write(
            "# SASL\nsecurity.protocol=sasl_plaintext\nsasl.password = s3cret=x\n",
            0o600,
        );
        let got = read_properties(&p).unwrap();
        assert_eq!(got[1], ("sasl.password".into(), "s3cret=x".into()));
        write("sasl.password s3cret\n", 0o600);
        let e = format!("{:#}", read_properties(&p).unwrap_err());
        assert!(e.contains("line 1") && !e.contains("s3cret"), "{e}");
        write("bootstrap.servers=elsewhere:9092\n", 0o600);
        assert!(read_properties(&p).is_err());
        write("sasl.password=s3cret\n", 0o666);
        let e = format!("{:#}", read_properties(&p).unwrap_err());
        assert!(
            e.contains("others can write") && !e.contains("s3cret"),
            "{e}"
        );
    }
}
