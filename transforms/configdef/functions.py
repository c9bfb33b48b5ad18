"""Which SQL functions a constraint expression may call: an allow-list of pure, row-level functions.

A constraint catalog is user input that the audit compiles into Spark SQL, so an expression must not reach past
the row it is given: no reflection (``reflect``, ``java_method``, ``try_reflect`` call any Java static method: the
redaction key is one ``System.getenv`` away), nothing reading files, the environment or session state, nothing
non-deterministic (a verdict must be reproducible), no function that raises on purpose, no aggregate, window,
generator or table-valued function, no subquery and no UDF (any name Spark's registry does not list here).

Every function of Spark's registry is either in :data:`ALLOWED_FUNCTIONS` or in :data:`DENIED_FUNCTIONS`
(``tests/transforms/constraints/test_constraint_functions.py`` checks the registry of the running Spark, so a new
Spark release cannot widen what an expression may call without someone deciding). The exact check walks the tree
Spark's own parser builds (``jobs.runtime.expression_check``); :func:`precheck_functions` is a cheap textual
pre-check that needs no Spark, so most mistakes are exit 2 before the session starts.
"""

from __future__ import annotations

import re
from typing import Final

from transforms.configdef.expr_limits import size_problem
from transforms.configdef.sql_text import code_segments

__all__ = [
    "ALLOWED_FUNCTIONS",
    "DENIED_FUNCTIONS",
    "function_problem",
    "precheck_functions",
]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Operators Spark also lists as functions.
_OPERATORS: Final = _names(
    "! != % & * + - / < << <= <=> <> = == > >= >> >>> ^ | || ~ and or not in between case when like ilike rlike "
    "regexp regexp_like if"
)
_CONDITIONAL: Final = _names(
    "coalesce ifnull nvl nvl2 nullif nullifzero zeroifnull nanvl equal_null greatest least isnull isnotnull isnan "
    "typeof"
)
_CASTS: Final = _names(
    "cast bigint binary boolean date decimal double float int smallint string time timestamp tinyint"
)
_NUMERIC: Final = _names(
    "abs acos acosh asin asinh atan atan2 atanh bin bround cbrt ceil ceiling conv cos cosh cot csc degrees div e "
    "exp expm1 factorial floor hex hypot ln log log10 log1p log2 mod negative pi pmod positive pow power radians "
    "rint round sec sign signum sin sinh sqrt tan tanh unhex width_bucket format_number to_number try_to_number "
    "try_add try_divide try_mod try_multiply try_subtract bit_count bit_get getbit shiftleft shiftright "
    "shiftrightunsigned"
)
_STRINGS: Final = _names(
    "ascii base64 unbase64 bit_length btrim char chr char_length character_length concat concat_ws contains decode "
    "elt encode endswith find_in_set format_string printf initcap instr lcase left len length levenshtein locate "
    "lower ltrim luhn_check mask octet_length overlay position quote regexp_count regexp_extract regexp_extract_all "
    "regexp_instr regexp_replace regexp_substr replace reverse right rtrim sentences soundex split split_part "
    "startswith substr substring substring_index to_binary try_to_binary translate trim ucase upper "
    "is_valid_utf8 make_valid_utf8 validate_utf8 try_validate_utf8 to_char to_varchar collate collation "
    "parse_url try_parse_url url_decode url_encode try_url_decode str_to_map crc32 hash md5 sha sha1 sha2 "
    "xxhash64"
)
_COLLECTIONS: Final = _names(
    "array array_append array_compact array_contains array_distinct array_except array_insert array_intersect "
    "array_join array_max array_min array_position array_prepend array_remove array_size array_sort array_union "
    "arrays_overlap arrays_zip cardinality element_at try_element_at exists filter flatten forall get size slice "
    "sort_array transform aggregate reduce zip_with map map_concat map_contains_key map_entries map_filter "
    "map_from_arrays map_from_entries map_keys map_values map_zip_with transform_keys transform_values struct "
    "named_struct"
)
_FORMATS: Final = _names(
    "from_json get_json_object json_array_length json_object_keys schema_of_json to_json from_csv schema_of_csv "
    "to_csv parse_json try_parse_json variant_get try_variant_get is_variant_null is_valid_variant "
    "schema_of_variant to_variant_object"
)
_DATETIME: Final = _names(
    "add_months convert_timezone date_add date_diff date_format date_from_unix_date date_part date_sub date_trunc "
    "dateadd datediff datepart day dayname dayofmonth dayofweek dayofyear extract from_unixtime from_utc_timestamp "
    "hour last_day make_date make_dt_interval make_interval make_time make_timestamp make_timestamp_ltz "
    "make_timestamp_ntz make_ym_interval minute month monthname months_between next_day quarter second "
    "time_bucket time_diff time_from_micros time_from_millis time_from_seconds time_to_micros time_to_millis "
    "time_to_seconds time_trunc timestamp_micros timestamp_millis timestamp_seconds to_date to_time to_timestamp "
    "to_timestamp_ltz to_timestamp_ntz to_unix_timestamp to_utc_timestamp trunc try_make_interval "
    "try_make_timestamp try_make_timestamp_ltz try_make_timestamp_ntz try_to_date try_to_time try_to_timestamp "
    "unix_date unix_micros unix_millis unix_seconds unix_timestamp weekday weekofyear year"
)

ALLOWED_FUNCTIONS: Final = (
    _OPERATORS | _CONDITIONAL | _CASTS | _NUMERIC | _STRINGS | _COLLECTIONS | _FORMATS | _DATETIME
)

# Denied, by the reason; every name Spark's registry lists and ALLOWED_FUNCTIONS does not is here.
DENIED_BY_REASON: Final[dict[str, frozenset[str]]] = {
    "calls Java methods by reflection": frozenset({"java_method", "reflect", "try_reflect"}),
    "reads session, file or environment state": _names(
        "current_catalog current_database current_schema current_path current_user session_user user "
        "current_timezone version input_file_name input_file_block_length input_file_block_start spark_partition_id "
        "monotonically_increasing_id python_worker_logs current_date current_time current_timestamp curdate now "
        "localtimestamp"
    ),
    "is not deterministic": _names("rand randn random randstr uniform uuid shuffle"),
    "raises on purpose": frozenset({"raise_error", "assert_true"}),
    "is a generator or table-valued function": _names(
        "explode explode_outer inline inline_outer posexplode posexplode_outer stack json_tuple variant_explode "
        "variant_explode_outer range collations sql_keywords table_changes table_changes_by_path"
    ),
    "is an aggregate or window function": _names(
        "any any_value approx_count_distinct approx_percentile approx_top_k approx_top_k_accumulate "
        "approx_top_k_combine array_agg avg bit_and bit_or bit_xor bitmap_and_agg bitmap_construct_agg "
        "bitmap_or_agg bool_and bool_or collect_list collect_set corr count count_if count_min_sketch covar_pop "
        "covar_samp cume_dist dense_rank every first first_value grouping grouping_id histogram_numeric "
        "hll_sketch_agg hll_union_agg kll_merge_agg_bigint kll_merge_agg_double kll_merge_agg_float "
        "kll_sketch_agg_bigint kll_sketch_agg_double kll_sketch_agg_float kurtosis lag last last_value lead listagg "
        "max max_by mean measure median min min_by mode nth_value ntile percent_rank percentile percentile_approx "
        "percentile_cont percentile_disc rank regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope "
        "regr_sxx regr_sxy regr_syy row_number schema_of_variant_agg skewness some std stddev stddev_pop "
        "stddev_samp string_agg sum theta_intersection_agg theta_sketch_agg theta_union_agg try_avg try_sum "
        "tuple_intersection_agg_double tuple_intersection_agg_integer tuple_sketch_agg_double "
        "tuple_sketch_agg_integer tuple_union_agg_double tuple_union_agg_integer var_pop var_samp variance "
        "vector_avg vector_sum session_window window window_time"
    ),
    "sizes its output from an argument (memory exhaustion)": _names("array_repeat repeat space sequence lpad rpad"),
    "decodes an external format or reads a schema file": _names(
        "from_avro to_avro schema_of_avro from_protobuf to_protobuf from_xml to_xml schema_of_xml xpath "
        "xpath_boolean xpath_double xpath_float xpath_int xpath_long xpath_number xpath_short xpath_string"
    ),
    "is not a config check (cryptography, sketches, geometry, vectors)": _names(
        "aes_decrypt aes_encrypt try_aes_decrypt approx_top_k_estimate bitmap_bit_position bitmap_bucket_number "
        "bitmap_count hll_sketch_estimate hll_union kll_sketch_get_n_bigint kll_sketch_get_n_double "
        "kll_sketch_get_n_float kll_sketch_get_quantile_bigint kll_sketch_get_quantile_double "
        "kll_sketch_get_quantile_float kll_sketch_get_rank_bigint kll_sketch_get_rank_double "
        "kll_sketch_get_rank_float kll_sketch_merge_bigint kll_sketch_merge_double kll_sketch_merge_float "
        "kll_sketch_to_string_bigint kll_sketch_to_string_double kll_sketch_to_string_float theta_difference "
        "theta_intersection theta_sketch_estimate theta_union tuple_difference_double tuple_difference_integer "
        "tuple_difference_theta_double tuple_difference_theta_integer tuple_intersection_double "
        "tuple_intersection_integer tuple_intersection_theta_double tuple_intersection_theta_integer "
        "tuple_sketch_estimate_double tuple_sketch_estimate_integer tuple_sketch_summary_double "
        "tuple_sketch_summary_integer tuple_sketch_theta_double tuple_sketch_theta_integer tuple_union_double "
        "tuple_union_integer tuple_union_theta_double tuple_union_theta_integer st_asbinary st_geogfromwkb "
        "st_geomfromwkb st_setsrid st_srid vector_cosine_similarity vector_inner_product vector_l2_distance "
        "vector_norm vector_normalize"
    ),
}
DENIED_FUNCTIONS: Final = frozenset().union(*DENIED_BY_REASON.values())


def function_problem(name: str) -> str | None:
    """Why an expression may not call ``name`` (a function name as written), or None when it may."""
    lowered = name.lower()
    if lowered in ALLOWED_FUNCTIONS:
        return None
    for reason, names in DENIED_BY_REASON.items():
        if lowered in names:
            return f"calls {name}(), which {reason}"
    return f"calls {name}(), which is not an allowed SQL function (no UDFs; see transforms/configdef/functions.py)"


# Words followed by "(" that are syntax, not a function call: keywords, and types in `cast(x AS decimal(10, 2))`.
_SYNTAX_WORDS: Final = _names(
    "and or not in is exists case when then else end as try_cast array map struct interval decimal dec numeric "
    "varchar char character string extract substring trim position overlay between like ilike rlike"
)
_CALL: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_SUBQUERY_WORD: Final = re.compile(r"(?<![\w$])(select|table|values|with)(?![\w$])", re.IGNORECASE)


def precheck_functions(text: str) -> str | None:
    """A problem with the functions an expression calls, found from its text alone (no Spark), or None.

    Conservative in one direction only: it never rejects an allowed call, and what it lets through is checked
    exactly on Spark's parse tree at validation. ``IDENTIFIER(...)`` (a function named at run time) and the words of
    a subquery are rejected here too, and so is an expression too long or too deeply nested for Spark's parser
    (``expr_limits.size_problem``: one nested thousands deep overflows its stack).
    """
    if (problem := size_problem(text)) is not None:
        return problem
    for is_code, segment in code_segments(text):
        if not is_code:
            continue
        if (word := _SUBQUERY_WORD.search(segment)) is not None:
            return f"uses {word.group(1).upper()}: subqueries and table reads are not allowed in an expression"
        for match in _CALL.finditer(segment):
            name = match.group(1)
            before = segment[: match.start()].rstrip()
            if before.endswith("."):
                return f"calls a qualified function name (...{name}()): write the function name alone"
            if name.lower() == "identifier":
                return "uses IDENTIFIER(...): function names must be written out"
            if name.lower() in _SYNTAX_WORDS:
                continue
            if (problem := function_problem(name)) is not None:
                return problem
    return None
