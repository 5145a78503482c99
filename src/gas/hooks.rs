//! [`EffectHook`]: game code's post-execute step (the role of
//! `PostGameplayEffectExecute`).

use hecs::{Entity, World};

use super::Gas;
use crate::effects::Execution;

/// A post-execute step written as a type: called for every instant or
/// periodic execution, once meta attributes have been drained (so `Health`
/// is already updated), as an observer of executions, in the trace's order.
///
/// A hook may do anything the context allows, including applying more
/// effects; executions those cause reach the hooks in turn. Register one
/// with [`Gas::add_effect_hook`]; a closure goes to [`Gas::add_hook`].
pub trait EffectHook: Send + Sync {
    /// `target` received `execution`.
    fn post_execute(&self, world: &mut World, gas: &mut Gas, target: Entity, execution: &Execution);
}

impl<F> EffectHook for F
where
    F: Fn(&mut World, &mut Gas, Entity, &Execution) + Send + Sync,
{
    fn post_execute(
        &self,
        world: &mut World,
        gas: &mut Gas,
        target: Entity,
        execution: &Execution,
    ) {
        self(world, gas, target, execution)
    }
}
