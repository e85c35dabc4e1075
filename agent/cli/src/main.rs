//! The `crawlsieve` binary: a thin layer that parses the command line and
//! wires library pieces together. Each subcommand lives in `cli/`.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
