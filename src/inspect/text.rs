//! The text form of an [`Inspection`]: what a designer reads in a console.

use std::fmt::{self, Display, Formatter};

use super::{AbilityStatus, Inspection};

impl Display for Inspection {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} at {}", self.entity, self.at)?;
        writeln!(f, "  attributes")?;
        for a in &self.attributes {
            write!(
                f,
                "    {:<22} {:>9} (base {})",
                a.name,
                number(a.current),
                number(a.base)
            )?;
            match (a.min, a.max) {
                (None, None) => {}
                (lo, hi) => write!(f, " in [{}, {}]", bound(lo), bound(hi))?,
            }
            if a.points_lost != 0.0 {
                write!(f, ", {} points lost to the cap", number(a.points_lost))?;
            }
            writeln!(f)?;
            for s in &a.sources {
                writeln!(
                    f,
                    "        {:<8} {:>9}  from {}",
                    s.op,
                    number(s.value),
                    s.source
                )?;
            }
        }
        writeln!(f, "  tags")?;
        if self.tags.is_empty() {
            writeln!(f, "    (none)")?;
        }
        for t in &self.tags {
            writeln!(f, "    {:<30} x{}  from {}", t.tag, t.count, list(&t.from))?;
        }
        writeln!(f, "  effects")?;
        if self.effects.is_empty() {
            writeln!(f, "    (none)")?;
        }
        for e in &self.effects {
            write!(f, "    {:<26} x{}", e.effect, e.stacks)?;
            match (e.remaining, e.duration) {
                (Some(left), Some(total)) => write!(f, ", {left} of {total} left")?,
                _ => write!(f, ", infinite")?,
            }
            if let (Some(period), Some(next)) = (e.period, e.next_tick) {
                write!(f, ", every {period}, next at {next}")?;
            }
            if e.inhibited {
                write!(f, ", inhibited")?;
            }
            if !e.granted_tags.is_empty() {
                write!(f, ", grants {}", list(&e.granted_tags))?;
            }
            if let Some(source) = &e.source {
                write!(f, ", from {source}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  abilities")?;
        for a in &self.abilities {
            write!(f, "    {:<26} level {}  ", a.ability, a.level)?;
            match &a.status {
                AbilityStatus::Active { waiting_for, until } => {
                    write!(f, "active, waiting for {waiting_for}")?;
                    if let Some(until) = until {
                        write!(f, " until {until}")?;
                    }
                }
                AbilityStatus::Ready => write!(f, "ready")?,
                AbilityStatus::OnCooldown { tag, remaining } => {
                    write!(f, "on cooldown ({tag}, {remaining} left)")?
                }
                AbilityStatus::Refused { reason, detail } => {
                    write!(f, "refused: {reason}")?;
                    if let Some(detail) = detail {
                        write!(f, " [{detail}]")?;
                    }
                }
            }
            writeln!(f)?;
        }
        for section in &self.sections {
            writeln!(f, "  {}", section.title)?;
            for (name, value) in &section.fields {
                writeln!(f, "    {name:<22} {value}")?;
            }
        }
        Ok(())
    }
}

/// A value as the trace writes them: whole numbers bare, others with up to
/// three decimals.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        // 70.00000000000001 is "70", not "70.": a fraction that rounds
        // away leaves no point behind.
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

fn bound(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), number)
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    /// Whole numbers bare, others to three decimals, never a bare point.
    #[test]
    fn numbers_read_without_a_trailing_point() {
        assert_eq!(number(70.0), "70");
        assert_eq!(number(100.0 * 0.7), "70");
        assert_eq!(number(0.0001), "0");
        assert_eq!(number(1.25), "1.25");
        assert_eq!(number(-0.5), "-0.5");
    }
}
