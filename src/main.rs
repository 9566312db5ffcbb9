fn main() {
    std::process::exit(autoeval::cli::main());
}
