//! Effect definitions compiled from their data: each effect's fields
//! checked and resolved (attributes, tags, magnitudes, stacking, cues,
//! the effects and abilities it names), the `life` rule, and every
//! problem reported with its file and place.

use smallvec::SmallVec;

use super::calculation::{CalculationId, Calculations};
use super::data::{
    CaptureFrom, CueData, CueEvent, DurationData, EffectData, LifeData, MagnitudeData,
};
use super::def::{
    AttributeCapture, Cue, DurationPolicy, EffectDef, EffectDefs, EffectId, Life, Magnitude,
    ModifierDef, Period, Shape, Stacking,
};
use crate::abilities::AbilityDefs;
use crate::attributes::{AttributeData, AttributeId, AttributeSchema, ModOp};
use crate::diagnostics::{Diagnostic, LoadErrors, SourceFile};
use crate::names::NameTable;
use crate::tags::{TagRegistry, TagSet};
use crate::time::SimDuration;

use super::active::MAX_STACKS;

impl EffectDefs {
    /// Compiles effect data, the `life` rule and the attributes' `on_zero`
    /// effects. Problems are pushed to `errors`.
    pub(crate) fn build(
        data: &[(&SourceFile, &EffectData)],
        life: &[(&SourceFile, &LifeData)],
        attribute_data: &[(&SourceFile, &AttributeData)],
        tags: &TagRegistry,
        attributes: &AttributeSchema,
        calculations: &Calculations,
        errors: &mut LoadErrors,
    ) -> EffectDefs {
        let mut names = NameTable::new("effect");
        let mut defs = Vec::with_capacity(data.len());
        let mut files: Vec<&SourceFile> = Vec::new();
        for &(file, effect) in data {
            let defined_in = |first: usize| files[first].name.as_str();
            if names
                .declare(&effect.name, file, defined_in, errors)
                .is_none()
            {
                continue;
            }
            files.push(file);
            defs.push(compile(
                file,
                effect,
                tags,
                attributes,
                calculations,
                errors,
            ));
        }
        resolve_effect_links(&mut defs, data, &names, tags, errors);
        let life = compile_life(life, tags, errors);
        let mut zero_effects = vec![None; attributes.len()];
        for &(file, data) in attribute_data {
            let (Some(effect), Some(attribute)) = (&data.on_zero, attributes.get(&data.name))
            else {
                continue;
            };
            match names.resolve_in(effect, &file.name, &file.text) {
                Ok(id) => {
                    let chain = super::def::chain_set_by_caller_keys(&defs, EffectId::new(id));
                    if let Some(&(_, key)) = chain.first() {
                        errors.push(file.error_after(&data.name, effect, format!(
                            "attribute `{}`: on_zero effect `{effect}` needs a SetByCaller value under `{}`, which nobody gives it",
                            data.name, tags.name(key)
                        )));
                    }
                    zero_effects[attribute.index()] = Some(EffectId::new(id));
                }
                Err(e) => {
                    let mut e = e.at_text_after(&file.text, &data.name, effect);
                    e.message = format!("attribute `{}`: on_zero: {}", data.name, e.message);
                    errors.push(e);
                }
            }
        }
        let live_source_calculations = defs.iter().any(|d| d.live_source_calculation);
        EffectDefs {
            defs,
            names,
            life,
            zero_effects,
            live_source_calculations,
            reactive_tags: TagSet::new(),
        }
    }

    /// Resolves the abilities effects grant, once abilities are compiled
    /// (they name effects in turn, so they come second).
    pub(crate) fn link_abilities(
        &mut self,
        data: &[(&SourceFile, &EffectData)],
        abilities: &AbilityDefs,
        errors: &mut LoadErrors,
    ) {
        for &(file, effect) in data {
            let Some(index) = self.names.get(&effect.name) else {
                continue;
            };
            let granted = effect
                .granted_abilities
                .iter()
                .filter_map(|name| match abilities.resolve_in(name, file) {
                    Ok(id) => Some(id),
                    Err(e) => {
                        errors.push(in_effect(e, file, &effect.name, name, None));
                        None
                    }
                })
                .collect();
            self.defs[index].granted_abilities = granted;
        }
    }
}

/// Compiles one effect, pushing every problem found.
fn compile(
    file: &SourceFile,
    data: &EffectData,
    tags: &TagRegistry,
    attributes: &AttributeSchema,
    calculations: &Calculations,
    errors: &mut LoadErrors,
) -> EffectDef {
    let name = data.name.as_str();
    let err = |needle: &str, message: String| {
        file.error_after(name, needle, format!("effect `{name}`: {message}"))
    };
    let tag = |text: &str, errors: &mut LoadErrors| match tags.get(text) {
        Some(tag) => Some(tag),
        None => {
            let unknown = tags.resolve(text).expect_err("the tag is unknown");
            let mut d = unknown
                .locate(&file.name, &file.text)
                .at_text_after(&file.text, name, text);
            d.message = format!("effect `{name}`: unknown tag `{text}`");
            errors.push(d);
            None
        }
    };
    let tag_set = |texts: &[String], errors: &mut LoadErrors| -> TagSet {
        texts.iter().filter_map(|t| tag(t, errors)).collect()
    };
    let query = |def: &crate::tags::TagQueryDef, errors: &mut LoadErrors| {
        def.resolve(tags, &file.name, &file.text, errors)
    };

    let magnitude = |what: &str, data: &MagnitudeData, errors: &mut LoadErrors| -> Magnitude {
        let finite = |value: f64, errors: &mut LoadErrors| {
            if !value.is_finite() {
                errors.push(err(
                    what,
                    format!("{what} magnitude must be finite, found {value}"),
                ));
            }
        };
        match data {
            MagnitudeData::Constant(value) => {
                finite(*value, errors);
                Magnitude::Constant(*value)
            }
            MagnitudeData::Scaled(values) => {
                if values.is_empty() {
                    errors.push(err(
                        what,
                        format!("{what} magnitude `Scaled` needs at least one value"),
                    ));
                }
                values.iter().for_each(|v| finite(*v, errors));
                Magnitude::Scaled(values.clone().into_boxed_slice())
            }
            MagnitudeData::SetByCaller(key) => match tag(key, errors) {
                Some(key) => Magnitude::SetByCaller(key),
                None => Magnitude::Constant(0.0),
            },
            MagnitudeData::Custom(calculation) => {
                match calculations
                    .magnitude_names()
                    .resolve_in(calculation, &file.name, &file.text)
                {
                    Ok(index) => Magnitude::Custom(CalculationId::new(index)),
                    Err(e) => {
                        let hint = "register it with CatalogBuilder::add_magnitude";
                        errors.push(in_effect(e, file, name, calculation, Some(hint)));
                        Magnitude::Constant(0.0)
                    }
                }
            }
            MagnitudeData::Attribute(capture) => {
                for value in [capture.coefficient, capture.pre_add, capture.post_add] {
                    finite(value, errors);
                }
                match attributes.resolve_in(&capture.attribute, file) {
                    Ok(attribute) => Magnitude::Attribute(AttributeCapture {
                        attribute,
                        from: capture.from,
                        live: capture.live,
                        coefficient: capture.coefficient,
                        pre_add: capture.pre_add,
                        post_add: capture.post_add,
                    }),
                    Err(e) => {
                        errors.push(e.at_text_after(&file.text, name, &capture.attribute));
                        Magnitude::Constant(0.0)
                    }
                }
            }
        }
    };

    let duration = match &data.duration {
        DurationData::Instant => DurationPolicy::Instant,
        DurationData::Infinite => DurationPolicy::Infinite,
        DurationData::Duration(m) => {
            let m = magnitude("duration", m, errors);
            let authored: &[f64] = match &m {
                Magnitude::Constant(secs) => std::slice::from_ref(secs),
                Magnitude::Scaled(table) => table,
                _ => &[],
            };
            if let Some(secs) = authored
                .iter()
                .find(|&&secs| SimDuration::from_secs_f64(secs).is_err())
            {
                errors.push(err(
                    "Duration",
                    format!("duration must be a number of seconds ≥ 0, found {secs}"),
                ));
            }
            DurationPolicy::Duration(m)
        }
    };
    let instant = matches!(duration, DurationPolicy::Instant);

    let period = data.period.as_ref().and_then(|p| {
        if instant {
            errors.push(err(
                "period",
                "an instant effect cannot be periodic (give it a duration)".into(),
            ));
            return None;
        }
        match SimDuration::from_secs_f64(p.seconds) {
            Ok(interval) if interval >= Period::MIN => Some(Period {
                interval,
                execute_on_application: p.execute_on_application,
            }),
            _ => {
                errors.push(err(
                    "period",
                    format!(
                        "period must be at least {} s, found {}",
                        Period::MIN.as_secs_f64(),
                        p.seconds
                    ),
                ));
                None
            }
        }
    });

    let mut modifiers = SmallVec::new();
    for m in &data.modifiers {
        let Ok(attribute) = attributes.resolve_in(&m.attribute, file) else {
            let e = attributes
                .resolve_in(&m.attribute, file)
                .expect_err("unknown attribute");
            errors.push(e.at_text_after(&file.text, name, &m.attribute));
            continue;
        };
        // An execution writes the base, which a derived rule may own: on an
        // entity of that profile it would change nothing, silently.
        if instant || period.is_some() {
            let written = attributes.def(attribute).drains.unwrap_or(attribute);
            if let Some(profile) = attributes.owning_profile(written) {
                errors.push(file.warning_after(
                    name,
                    &m.attribute,
                    format!(
                        "effect `{name}`: executes into `{}`, whose base derived profile `{profile}` owns: on an entity of that profile it changes nothing (hold it as a modifier with a duration instead)",
                        attributes.def(written).name
                    ),
                ));
            }
        }
        if attributes.def(attribute).meta && !instant && period.is_none() {
            errors.push(err(
                &m.attribute,
                format!(
                    "meta attribute `{}` can only be modified by instant or periodic executions",
                    m.attribute
                ),
            ));
        }
        let magnitude = magnitude("modifier", &m.magnitude, errors);
        // A `Mult` on an Interval attribute divides its span: a factor of
        // zero or below (as authored, or summed over the stack limit by the
        // stacking rule) would make it endless or negative.
        let span = attributes.def(attribute).mode == crate::attributes::AttributeMode::Interval;
        if span && m.op == ModOp::Mult {
            let limit = data.stacking.as_ref().map_or(1, |s| s.limit.max(1));
            let authored: &[f64] = match &magnitude {
                Magnitude::Constant(value) => std::slice::from_ref(value),
                Magnitude::Scaled(table) => table,
                _ => &[],
            };
            let stacked = authored
                .iter()
                .map(|&value| (value, m.op.stacked(value, limit)))
                .find(|&(_, stacked)| stacked <= 0.0);
            if let Some((value, stacked)) = stacked {
                let how = if limit > 1 {
                    format!(" ({stacked} at its {limit} stacks)")
                } else {
                    String::new()
                };
                errors.push(err(
                    &m.attribute,
                    format!(
                        "a Mult on the Interval attribute `{}` divides its span, so it must stay above 0; found {value}{how}",
                        m.attribute
                    ),
                ));
            }
        }
        // A live capture of a target attribute that its own modifier moves
        // (itself, or through a derived rule or bound) would feed itself:
        // every refresh would move it again.
        // A custom magnitude's live captures count on a held modifier; on a
        // periodic effect it is worked out once per execution, as an
        // execution's own reads are.
        let live_reads: SmallVec<[AttributeId; 2]> = match magnitude {
            Magnitude::Attribute(c) if c.live && c.from == CaptureFrom::Target => {
                smallvec::smallvec![c.attribute]
            }
            Magnitude::Custom(id) if period.is_none() => calculations
                .magnitude_def(id)
                .captures
                .iter()
                .filter(|c| c.live && c.from == CaptureFrom::Target)
                .map(|c| c.attribute)
                .collect(),
            _ => SmallVec::new(),
        };
        for read in live_reads {
            if attributes.moves(attribute, read) {
                let read = attributes.def(read).name.as_str();
                let how = if read == m.attribute {
                    String::new()
                } else {
                    format!(
                        ", which `{}` moves through a derived rule or bound",
                        m.attribute
                    )
                };
                errors.push(err(
                    &m.attribute,
                    format!(
                        "the modifier of `{}` reads `{read}` live from the target{how}, so its value would feed itself; capture it at application (live: false) or read another attribute",
                        m.attribute
                    ),
                ));
            }
        }
        modifiers.push(ModifierDef {
            divides_span: span && m.op == ModOp::Mult,
            attribute,
            op: m.op,
            magnitude,
        });
    }

    let executions: SmallVec<[CalculationId; 1]> = data
        .executions
        .iter()
        .filter_map(|calculation| {
            match calculations
                .execution_names()
                .resolve_in(calculation, &file.name, &file.text)
            {
                Ok(index) => Some(CalculationId::new(index)),
                Err(e) => {
                    let hint = "register it with CatalogBuilder::add_execution";
                    errors.push(in_effect(e, file, name, calculation, Some(hint)));
                    None
                }
            }
        })
        .collect();
    if !executions.is_empty() && !instant && period.is_none() {
        errors.push(err(
            "executions",
            "executions run on instant or periodic executions; give the effect a period or make it instant".into(),
        ));
    }

    let cues = data
        .cues
        .iter()
        .filter_map(|c: &CueData| {
            let cue = tag(&c.tag, errors)?;
            if !tags.name(cue).starts_with("GameplayCue.") {
                errors.push(err(
                    &c.tag,
                    format!("cue tag `{}` must live under GameplayCue.*", c.tag),
                ));
            }
            if instant && c.on != CueEvent::Execute {
                errors.push(err(
                    &c.tag,
                    "an instant effect only fires cues on Execute".into(),
                ));
            }
            if !instant && period.is_none() && c.on == CueEvent::Execute {
                errors.push(err(
                    &c.tag,
                    "a cue on Execute fires at each execution, and this effect has none (it is neither instant nor periodic); use Add or Remove".into(),
                ));
            }
            Some(Cue { tag: cue, on: c.on })
        })
        .collect();

    let chance = data.chance.filter(|&p| {
        let valid = p.is_finite() && (0.0..=1.0).contains(&p);
        if !valid {
            errors.push(err(
                "chance",
                format!("chance must be between 0 and 1, found {p}"),
            ));
        }
        valid
    });
    if matches!(duration, DurationPolicy::Infinite) && !data.on_expiry.is_empty() {
        errors.push(err(
            "on_expiry",
            "an Infinite effect never expires, so its on_expiry effects would never apply (on_removal runs when it is removed)".into(),
        ));
    }
    if instant && (!data.on_expiry.is_empty() || !data.on_removal.is_empty()) {
        errors.push(err(
            "on_",
            "an instant effect has no lifetime, so it neither expires nor is removed".into(),
        ));
    }
    if instant && !data.granted_abilities.is_empty() {
        errors.push(err(
            "granted_abilities",
            "an instant effect has no lifetime to grant abilities for".into(),
        ));
    }
    let granted_tags = tag_set(&data.granted_tags, errors);
    let ongoing_requirements = query(&data.ongoing_requirements, errors);
    // Its own tags would start and stop it: granted while it runs, they
    // upset the requirements that let it run (or, required, hold it on
    // for ever once something else started it).
    let mut gate = TagSet::new();
    ongoing_requirements.collect_tags(&mut gate);
    if let Some((own, read)) = granted_tags.iter().find_map(|own| {
        gate.iter()
            .find(|&read| own.matches(read))
            .map(|read| (own, read))
    }) {
        errors.push(err(
            "ongoing_requirements",
            format!(
                "its ongoing requirements read `{}`, which its own granted tag `{}` \
                 matches: running, it would switch itself off (or hold itself on)",
                tags.name(read),
                tags.name(own)
            ),
        ));
    }
    let stacking = data.stacking.as_ref().map(|s| {
        if s.limit == 0 {
            errors.push(err("limit", "stack limit must be at least 1".into()));
        }
        if s.limit > MAX_STACKS {
            errors.push(err(
                "limit",
                format!("stack limit {} is above the highest, {MAX_STACKS}", s.limit),
            ));
        }
        Stacking {
            by: s.by,
            limit: s.limit.clamp(1, MAX_STACKS),
            duration: s.duration,
            period: s.period,
            on_expiry: s.on_expiry,
            suppress_cues: s.suppress_cues,
        }
    });
    if instant {
        let pointless = [
            (!granted_tags.is_empty(), "granted_tags"),
            (!ongoing_requirements.is_empty(), "ongoing_requirements"),
            (stacking.is_some(), "stacking"),
            (data.immunity.is_some(), "immunity"),
        ];
        for (present, field) in pointless {
            if present {
                errors.push(err(
                    field,
                    format!("an instant effect has no lifetime, so `{field}` means nothing"),
                ));
            }
        }
    }

    let has_live_capture = modifiers.iter().any(|m: &ModifierDef| match m.magnitude {
        Magnitude::Attribute(c) => c.live,
        Magnitude::Custom(id) => calculations
            .magnitude_def(id)
            .captures
            .iter()
            .any(|c| c.live),
        _ => false,
    });
    let custom_modifiers = modifiers
        .iter()
        .any(|m| matches!(m.magnitude, Magnitude::Custom(_)));

    let mut def = EffectDef {
        name: data.name.clone(),
        period,
        modifiers,
        asset_tags: tag_set(&data.asset_tags, errors),
        granted_tags,
        application_requirements: query(&data.application_requirements, errors),
        ongoing_requirements,
        remove_effects_with_tags: tag_set(&data.remove_effects_with_tags, errors),
        // An empty query matches everything; as an immunity it means none,
        // as its siblings' empty queries (`activation_blocked`) do.
        immunity: (data.immunity.as_ref())
            .map(|q| query(q, errors))
            .filter(|q| !q.is_empty()),
        stacking,
        cues,
        has_live_capture,
        custom_modifiers,
        // Read from the definition itself, just below.
        live_source_calculation: false,
        reads_source: false,
        reads_target: false,
        set_by_caller_reads: 0,
        executions,
        duration,
        affects_dead: data.affects_dead,
        chance,
        // Effect names resolve once every effect is numbered (below).
        conditional: SmallVec::new(),
        on_expiry: SmallVec::new(),
        on_removal: SmallVec::new(),
        // Abilities are compiled after effects: see `link_abilities`.
        granted_abilities: SmallVec::new(),
        // Settled with the whole catalog: see `settle_shapes`.
        shape: Shape::default(),
    };
    let live_source_calculation = def
        .calculation_captures(calculations)
        .any(|c| c.live && c.from == CaptureFrom::Source);
    let reads_source = def.source_attributes(calculations).next().is_some();
    let reads_target = def
        .modifiers
        .iter()
        .map(|m| &m.magnitude)
        .chain(def.duration.magnitude())
        .any(|m| matches!(m, Magnitude::Attribute(c) if c.from == CaptureFrom::Target))
        || def
            .calculation_captures(calculations)
            .chain(def.duration.magnitude().into_iter().flat_map(|m| match m {
                Magnitude::Custom(id) => calculations.magnitude_def(*id).captures.as_slice(),
                _ => &[],
            }))
            .any(|c| c.from == CaptureFrom::Target);
    def.reads_target = reads_target;
    def.live_source_calculation = live_source_calculation;
    def.reads_source = reads_source;
    def.set_by_caller_reads = def.set_by_caller_keys().count();
    def
}

/// The one `life` section of all the files.
fn compile_life(
    sections: &[(&SourceFile, &LifeData)],
    tags: &TagRegistry,
    errors: &mut LoadErrors,
) -> Life {
    let Some(&(file, data)) = sections.first() else {
        return Life::default();
    };
    for &(again, _) in &sections[1..] {
        errors.push(again.error_at(
            "life",
            format!(
                "the `life` rule is already set in {}; set it once",
                file.name
            ),
        ));
    }
    Life {
        dead: data.dead.resolve(tags, &file.name, &file.text, errors),
        periodic: data.periodic,
    }
}

/// Resolves the effects an effect names (conditional, on expiry, on
/// removal) once every effect is numbered, and rejects conditional chains
/// that loop.
fn resolve_effect_links(
    defs: &mut [EffectDef],
    data: &[(&SourceFile, &EffectData)],
    names: &NameTable,
    tags: &TagRegistry,
    errors: &mut LoadErrors,
) {
    for &(file, effect) in data {
        let Some(index) = names.get(&effect.name) else {
            continue;
        };
        let name = effect.name.as_str();
        let resolve = |target: &str, errors: &mut LoadErrors| match names
            .resolve_in(target, &file.name, &file.text)
        {
            Ok(id) => Some(EffectId::new(id)),
            Err(e) => {
                errors.push(in_effect(e, file, name, target, None));
                None
            }
        };
        let conditional = effect
            .conditional
            .iter()
            .filter_map(|c| {
                let id = resolve(&c.effect, errors)?;
                Some((id, c.when.resolve(tags, &file.name, &file.text, errors)))
            })
            .collect();
        let on_expiry = effect
            .on_expiry
            .iter()
            .filter_map(|e| resolve(e, errors))
            .collect();
        let on_removal = effect
            .on_removal
            .iter()
            .filter_map(|e| resolve(e, errors))
            .collect();
        let def = &mut defs[index];
        def.conditional = conditional;
        def.on_expiry = on_expiry;
        def.on_removal = on_removal;
    }
    // A conditional chain that comes back to its start would apply forever.
    if let Some(cycle) = conditional_cycle(defs) {
        let start = cycle[0];
        let names_on_path: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&start))
            .map(|&i| defs[i].name.as_str())
            .collect();
        if let Some(&(file, _)) = data.iter().find(|(_, d)| d.name == defs[start].name) {
            errors.push(file.error_at(
                &defs[start].name,
                format!("conditional effects loop: {}", names_on_path.join(" → ")),
            ));
        }
    }
}

/// The first loop of conditional effects, as the effects on it from the
/// one where a walk in definition order enters it, if there is one. A
/// depth-first walk that visits each effect once: linear in the effects
/// and their conditional entries, where following every path (as this
/// once did) grew with the number of paths, which generated content can
/// make huge.
fn conditional_cycle(defs: &[EffectDef]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Seen {
        Not,
        OnPath,
        Done,
    }
    let mut seen = vec![Seen::Not; defs.len()];
    for root in 0..defs.len() {
        if seen[root] != Seen::Not {
            continue;
        }
        // The path from the root, each with the next entry to follow.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        seen[root] = Seen::OnPath;
        while let Some(&mut (at, ref mut next)) = path.last_mut() {
            let Some(&(to, _)) = defs[at].conditional.get(*next) else {
                seen[at] = Seen::Done;
                path.pop();
                continue;
            };
            *next += 1;
            match seen[to.index()] {
                Seen::OnPath => {
                    let from = path.iter().position(|&(i, _)| i == to.index())?;
                    return Some(path[from..].iter().map(|&(i, _)| i).collect());
                }
                Seen::Not => {
                    seen[to.index()] = Seen::OnPath;
                    path.push((to.index(), 0));
                }
                Seen::Done => {}
            }
        }
    }
    None
}

/// A name-resolution error inside an effect's definition: located at
/// `what` after the effect's name in its file, saying which effect, with
/// an optional hint.
fn in_effect(
    error: Diagnostic,
    file: &SourceFile,
    effect: &str,
    what: &str,
    hint: Option<&str>,
) -> Diagnostic {
    let mut error = error.at_text_after(&file.text, effect, what);
    error.message = match hint {
        Some(hint) => format!("effect `{effect}`: {} ({hint})", error.message),
        None => format!("effect `{effect}`: {}", error.message),
    };
    error
}
