//! `export --format parquet`: the flat rows ([`super::flat::columns`]) as a Parquet
//! file, Snappy pages, one row group per 65,536 samples (memory stays that of a group).
//! Builders are sized for a group up front and text that is new in every row (ids,
//! formulas, times) skips dictionary encoding: both were CPU the 1M benchmark paid for.

use super::ExportError;
use super::flat::{Cell, RunRows, Ty, columns};
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Rows per row group.
const GROUP: usize = 65_536;

/// Text columns that differ in (nearly) every row: a dictionary there is hashed and
/// then abandoned when it outgrows its page.
const UNIQUE: &[&str] = &[
    "id",
    "phi0",
    "psi",
    "phi1",
    "verdict_detail",
    "countermodel",
];

/// The key-value metadata key of the autoeval version that wrote the file.
pub const VERSION_KEY: &str = "autoeval.version";
/// The key-value metadata key of the run's manifest (its `run.json`, as JSON).
pub const MANIFEST_KEY: &str = "autoeval.manifest";

/// The Arrow schema of the flat rows: every column nullable, lists of text as
/// `list<string>`.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = columns()
        .into_iter()
        .map(|(name, ty)| {
            let t = match ty {
                Ty::Str => DataType::Utf8,
                Ty::Int => DataType::Int64,
                Ty::Float => DataType::Float64,
                Ty::Bool => DataType::Boolean,
                Ty::StrList => {
                    DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true)))
                }
                Ty::Time => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            };
            Field::new(name, t, true)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

enum Col {
    Str(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    List(ListBuilder<StringBuilder>),
    Time(TimestampMillisecondBuilder),
}

impl Col {
    /// A builder holding a row group without growing (text at 32 bytes a row; longer
    /// text grows it once or twice, not from empty).
    fn new(ty: Ty) -> Col {
        match ty {
            Ty::Str => Col::Str(StringBuilder::with_capacity(GROUP, GROUP * 32)),
            Ty::Int => Col::Int(Int64Builder::with_capacity(GROUP)),
            Ty::Float => Col::Float(Float64Builder::with_capacity(GROUP)),
            Ty::Bool => Col::Bool(BooleanBuilder::with_capacity(GROUP)),
            Ty::StrList => Col::List(ListBuilder::with_capacity(
                StringBuilder::with_capacity(GROUP, GROUP * 16),
                GROUP,
            )),
            Ty::Time => {
                Col::Time(TimestampMillisecondBuilder::with_capacity(GROUP).with_timezone("UTC"))
            }
        }
    }

    /// Appends a cell; a cell of another type than the column's is a bug, reported.
    fn push(&mut self, name: &str, c: Cell) -> Result<(), ExportError> {
        match (self, c) {
            (Col::Str(b), Cell::Null) => b.append_null(),
            (Col::Int(b), Cell::Null) => b.append_null(),
            (Col::Float(b), Cell::Null) => b.append_null(),
            (Col::Bool(b), Cell::Null) => b.append_null(),
            (Col::List(b), Cell::Null) => b.append_null(),
            (Col::Time(b), Cell::Null) => b.append_null(),
            // A time that is not RFC 3339 UTC (hand-edited files) is missing, not wrong.
            (Col::Time(b), Cell::Str(s)) => b.append_option(crate::base::clock::unix_ms(&s)),
            (Col::Str(b), Cell::Str(s)) => b.append_value(s),
            (Col::Int(b), Cell::Int(i)) => b.append_value(i),
            (Col::Float(b), Cell::Float(f)) => b.append_value(f),
            (Col::Bool(b), Cell::Bool(x)) => b.append_value(x),
            (Col::List(b), Cell::List(l)) => {
                for s in l {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            (_, c) => {
                return Err(ExportError::Failed(format!(
                    "internal: column {name} got {c:?}"
                )));
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Col::Str(b) => Arc::new(b.finish()),
            Col::Int(b) => Arc::new(b.finish()),
            Col::Float(b) => Arc::new(b.finish()),
            Col::Bool(b) => Arc::new(b.finish()),
            Col::List(b) => Arc::new(b.finish()),
            Col::Time(b) => Arc::new(b.finish()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Col::Str(b) => b.len(),
            Col::Int(b) => b.len(),
            Col::Float(b) => b.len(),
            Col::Bool(b) => b.len(),
            Col::List(b) => b.len(),
            Col::Time(b) => b.len(),
        }
    }
}

/// Writes the samples `picks` points at as Parquet to `out`, with the autoeval version
/// and the run's manifest in the file's key-value metadata, advancing `bar` once a
/// sample; returns the samples written and warnings.
pub(crate) fn write<W: Write + Send>(
    dir: &Path,
    picks: &[super::Pick],
    out: W,
    bar: &indicatif::ProgressBar,
) -> Result<(usize, Vec<String>), ExportError> {
    let rows = RunRows::load(dir)?;
    let manifest = crate::run::store::read_manifest(dir)
        .ok()
        .and_then(|m| serde_json::to_string(&m).ok());
    let cols = columns();
    let schema = schema();
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(GROUP))
        // Min/max per column chunk is what readers prune by; per page, over long
        // formulas, it only cost comparisons.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_key_value_metadata(Some(vec![
            KeyValue::new(
                VERSION_KEY.to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            KeyValue {
                key: MANIFEST_KEY.to_string(),
                value: manifest,
            },
        ]));
    for name in UNIQUE {
        props = props.set_column_dictionary_enabled(ColumnPath::from(*name), false);
    }
    let props = props.build();
    let mut w = ArrowWriter::try_new(out, schema.clone(), Some(props))?;
    let mut builders: Vec<Col> = cols.iter().map(|(_, t)| Col::new(*t)).collect();
    let flush = |builders: &mut Vec<Col>, w: &mut ArrowWriter<W>| -> Result<(), ExportError> {
        if builders.first().is_some_and(|b| b.len() > 0) {
            let arrays: Vec<ArrayRef> = builders.iter_mut().map(Col::finish).collect();
            w.write(&RecordBatch::try_new(schema.clone(), arrays)?)?;
        }
        Ok(())
    };
    let mut n = 0usize;
    let mut failure: Option<ExportError> = None;
    let mut warnings = rows.warnings.clone();
    warnings.extend(
        super::read_picks(dir, picks, |s, mask| {
            let mut step = || -> Result<(), ExportError> {
                let kinds = super::flat::kind_ids(mask);
                for ((b, (name, _)), cell) in
                    builders.iter_mut().zip(&cols).zip(rows.row(&s, &kinds))
                {
                    b.push(name, cell)?;
                }
                n += 1;
                bar.inc(1);
                if n.is_multiple_of(GROUP) {
                    flush(&mut builders, &mut w)?;
                }
                Ok(())
            };
            step().map_err(|e| {
                let msg = e.to_string();
                failure.get_or_insert(e);
                std::io::Error::other(msg)
            })
        })
        .map_err(|e| failure.take().unwrap_or_else(|| ExportError::failed(e)))?,
    );
    flush(&mut builders, &mut w)?;
    w.close()?;
    Ok((n, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A misspelt name would silently keep the dictionary on.
    #[test]
    fn unique_columns_exist() {
        let cols = columns();
        for name in UNIQUE {
            assert!(
                cols.iter().any(|(c, ty)| c == name && *ty == Ty::Str),
                "{name} is not a text column"
            );
        }
    }
}
