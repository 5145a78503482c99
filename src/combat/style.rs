//! Combat styles: set through `Action.Trigger.Combat.SetStyle` by an instant
//! ability, kept as a saved loose tag, read at swing start.

use std::sync::Arc;

use hecs::World;

use super::defs::Style;
use super::native;
use super::record::CombatRecord;
use super::runtime::CombatRuntime;
use crate::abilities::{AbilityBehaviour, AbilityCx, AbilitySystem, Activation};
use crate::gas::Gas;
use crate::tags::Tag;

/// `behaviour: Registered("SetStyle")`: strips every `Combat.Style.*` leaf
/// and adds the event's payload style. Default (no tag) is Aggressive.
pub struct SetStyle(pub Arc<CombatRuntime>);

impl AbilityBehaviour for SetStyle {
    fn can_activate(
        &self,
        _world: &World,
        _gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let tags = self.0.tags();
        match activation
            .event
            .payload
            .and_then(|t| Style::from_tag(tags, t))
        {
            Some(_) => Ok(()),
            None => Err(tags[native::FAIL_INVALID_PAYLOAD]),
        }
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        if let Some(style) = cx
            .event
            .payload
            .and_then(|t| Style::from_tag(self.0.tags(), t))
        {
            apply_style(&self.0, cx.world, cx.gas, cx.owner, style);
        }
        cx.end();
    }
}

/// Replaces the style tag (one saved loose reference) with `style`.
pub(crate) fn apply_style(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: hecs::Entity,
    style: Style,
) {
    let tags = runtime.tags();
    let held: Vec<Tag> = world
        .get::<&AbilitySystem>(entity)
        .map(|s| {
            s.loose_tags()
                .iter()
                .filter(|(t, _)| t.matches(tags[native::COMBAT_STYLE]))
                .flat_map(|(t, count)| std::iter::repeat_n(t, count as usize))
                .collect()
        })
        .unwrap_or_default();
    for tag in held {
        let _ = gas.remove_loose_tag(world, entity, tag);
    }
    let tag = style.tag(tags);
    gas.add_loose_tag(world, entity, tag, true);
    gas.record_game(CombatRecord::StyleChanged { entity, style: tag });
}
