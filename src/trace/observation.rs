//! [`Observation`]: what an observer is told, in the order of the trace.

use hecs::Entity;

use super::{TraceEvent, TraceKind, TraceRecord};
use crate::effects::Execution;

/// What an observer sees.
#[derive(Clone, Debug, PartialEq)]
pub enum Observation {
    /// Something the trace's vocabulary describes (recorded in the trace
    /// or not, as its filter says).
    Event(TraceEvent),
    /// An instant or periodic execution with everything it did (meta
    /// attributes drained, attributes brought to zero): the post-execute
    /// step. Delivered after the execution's own events and after any
    /// `on_zero` effect it caused, so `Status.Dead` is already there.
    Execution {
        /// Who received it.
        target: Entity,
        /// What it did.
        execution: Execution,
    },
}

impl Observation {
    /// The event, if this is one.
    pub fn event(&self) -> Option<&TraceEvent> {
        match self {
            Observation::Event(event) => Some(event),
            Observation::Execution { .. } => None,
        }
    }

    /// The event's kind, if this is one.
    pub fn kind(&self) -> Option<&TraceKind> {
        self.event().map(|e| &e.kind)
    }

    /// The game record of type `R`, if this is one.
    pub fn record<R: TraceRecord>(&self) -> Option<&R> {
        self.kind().and_then(TraceKind::record)
    }

    /// The entity it happened to (an event's subject, an execution's target).
    pub fn subject(&self) -> Entity {
        match self {
            Observation::Event(event) => event.kind.parties().0,
            Observation::Execution { target, .. } => *target,
        }
    }
}
