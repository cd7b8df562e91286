//! On macOS, lets this crate's link products leave Python's symbols undefined, to be bound by the
//! interpreter that loads the module: `-undefined dynamic_lookup`, which maturin passes for the
//! extension it builds and which PyO3's `extension-module` feature needs from any other linker
//! call (`pyo3_build_config::add_extension_module_link_args` emits it for cdylibs only). Here it
//! is set for every target of the crate, the unit-test harness that `make check-rust` links
//! (`cargo test --workspace --all-targets`, which lints this crate while compiling it) included.
//! Elsewhere it does nothing: a Linux link accepts the harness as it is.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        println!("cargo:rustc-link-arg=-undefined");
        println!("cargo:rustc-link-arg=dynamic_lookup");
    }
}
