//! `Option` values in the front end: what compiles, the C and simulator code it gives, and
//! the errors for what does not.

use crate::pipeline::compile_str;

fn compile(body: &str) -> Result<crate::pipeline::Compiled, Vec<String>> {
    let src = format!(
        "fn k(out: &mut [i32], keys: &[i32], queries: &[i32], scale: &[f32]) {{\n    {body}\n}}"
    );
    compile_str("", &src, "k.rs").map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

#[test]
fn scratch_print() {
    let body = std::fs::read_to_string("/tmp/body.rs").unwrap_or_default();
    match compile(&body) {
        Ok(c) => {
            println!("{}", c.cuda);
            println!("{}", c.sim.thread_fn);
        }
        Err(e) => panic!("{e:#?}"),
    }
}
