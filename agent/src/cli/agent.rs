//! `crawlsieve agent`: the long-running daemon beside a crawler.

use super::ConfigArgs;

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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(a.io_threads.max(1))
        .enable_all()
        .build()?;
    rt.block_on(crawlsieve::daemon::run(
        settings,
        |addr| eprintln!("agent listening on http://{addr}"),
        crawlsieve::shutdown::signal(),
    ))?;
    Ok(0)
}
