//! The diagnostic of a barrier that some threads of a block skip: at the barrier, or at the
//! kernel's call of the helper it was inlined from (once a call), with the point of divergence
//! and the origin of the non-uniform value.

use super::{Analyzer, Reason};
use crate::diag::Diagnostic;
use crate::ir::Span;

impl Analyzer<'_, '_> {
    pub(super) fn divergent_barrier(
        &mut self,
        span: Span,
        what: &str,
        reason: &Reason,
        calls: &[(Span, String)],
        trailing: Option<&str>,
    ) {
        if !self.reporting {
            return;
        }
        if let Some((call, _)) = calls.first() {
            let at = call.start();
            if !self
                .reported_calls
                .insert((call.lo.file(), at.line, at.column))
            {
                return;
            }
        }
        // A barrier inlined from a helper is reported at the kernel's call of the helper,
        // where the divergent control flow usually is.
        let mut d = match (calls.first(), trailing) {
            (None, Some(h)) => Diagnostic::new(
                span,
                format!("this call of `{h}` is not reached by every thread of the block, but `{h}` ends on a barrier (trailing sync: it writes shared memory that other threads may read)"),
            )
            .note(format!("call `{h}` where every thread of the block goes, or declare it `#[device(trailing_sync = false)]` and place the barrier yourself")),
            (Some((call, name)), _) => {
                let mut d = Diagnostic::new(
                    *call,
                    format!("this call of `{name}` is not reached by every thread of the block, but `{name}` contains a barrier ({what})"),
                );
                let inner: Vec<String> = calls[1..].iter().map(|(_, n)| format!("`{n}`")).collect();
                let via = if inner.is_empty() {
                    String::new()
                } else {
                    format!(" (through {})", inner.join(", "))
                };
                d = d.label(span, format!("the barrier in `{name}`{via}"));
                if let Some(h) = trailing {
                    d = d.note(format!("the barrier is the trailing sync of `{h}`, which writes shared memory; declare it `#[device(trailing_sync = false)]` to opt out"));
                }
                d
            }
            (None, None) => Diagnostic::new(
                span,
                format!("{what} is not reached by every thread of the block: some threads would skip it or wait at it a different number of times"),
            ),
        }
        .label(reason.span, format!("control flow diverges here: {}", reason.text));
        d = reason.explain(d);
        d = d.note("every thread of a block must reach each barrier the same number of times: move the barrier to where all threads go (before or after the branch or loop), or make the condition uniform (computed from block-uniform values only)");
        self.cx.push(d);
    }
}
