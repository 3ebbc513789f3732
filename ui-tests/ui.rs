//! Compile-fail and compile-pass cases of `#[kernel]`, checked against rustc's output.
//! `TRYBUILD=overwrite cargo test -p cuphase-ui-tests` regenerates the `.stderr` files.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
