//! `crawlsieve agent`: the long-running daemon beside a crawler.

use super::ConfigArgs;
use crawlsieve_daemon::agent::config::AgentSettings;

#[derive(clap::Args)]
pub struct AgentArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// I/O threads (HTTP, brokers); the pipeline runs on `workers` threads of its own.
    #[arg(long, default_value_t = 2)]
    io_threads: usize,
}

pub fn run(a: AgentArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let overrides = a.config.overrides()?;
    let agent = AgentSettings::load(a.config.config.as_deref(), &super::pairs(&overrides))?;
    let scheme = if agent.tls.is_some() { "https" } else { "http" };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(a.io_threads.max(1))
        .enable_all()
        .build()?;
    rt.block_on(crawlsieve_daemon::agent::run(
        settings,
        agent,
        |addr| eprintln!("agent listening on {scheme}://{addr}"),
        crawlsieve_daemon::shutdown::signal(),
    ))?;
    Ok(0)
}
