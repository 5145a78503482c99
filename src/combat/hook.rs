//! The combat post-execute step: what follows a damage application.

use std::sync::Arc;

use hecs::{Entity, World};

use super::runtime::CombatRuntime;
use crate::abilities::GameplayEvent;
use crate::effects::Execution;
use crate::gas::{EffectHook, Gas};
use crate::tags::native;

/// Runs after every execution that drained `Damage` into `Health`: a
/// target brought to zero receives `Combat.Event.Death` (from the server),
/// which triggers its death ability.
pub struct CombatHook(pub Arc<CombatRuntime>);

impl EffectHook for CombatHook {
    fn post_execute(
        &self,
        world: &mut World,
        gas: &mut Gas,
        target: Entity,
        execution: &Execution,
    ) {
        let runtime = &self.0;
        let Some(outcome) = execution.meta.iter().find(|m| m.drained == runtime.health) else {
            return;
        };
        if outcome.reached_zero() {
            let death = runtime.catalog.tags()[native::COMBAT_EVENT_DEATH];
            let mut event = GameplayEvent::new(death).target(target);
            event.instigator = execution.spec.source;
            gas.send_event(target, event);
        }
        let _ = world;
    }
}
