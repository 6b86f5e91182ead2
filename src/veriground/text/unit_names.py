"""Units as written after a number -> the pint expression each is converted with (text/quantities.py reads them).

An allow-list, so words such as "in", "at" or "a" after a number are never read as inch, technical atmosphere or
annum.
"""

from __future__ import annotations

# Unit as written → pint expression. Single capital letters (N, J, W, K, V, A, C, L) are units only right
# after a number; "T" (tesla), "F" (farad), "in", "at", "a", "t", "l", "B" and "pm" are left out as too
# often ordinary words or letters.
_SYMBOL_UNITS: dict[str, str] = {
    "m": "meter",
    "cm": "centimeter",
    "mm": "millimeter",
    "km": "kilometer",
    "nm": "nanometer",
    "μm": "micrometer",
    "um": "micrometer",
    "ft": "foot",
    "mi": "mile",
    "s": "second",
    "sec": "second",
    "ms": "millisecond",
    "μs": "microsecond",
    "ns": "nanosecond",
    "min": "minute",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "yr": "year",
    "yrs": "year",
    "g": "gram",
    "kg": "kilogram",
    "mg": "milligram",
    "μg": "microgram",
    "lb": "pound",
    "lbs": "pound",
    "N": "newton",
    "kN": "kilonewton",
    "J": "joule",
    "kJ": "kilojoule",
    "MJ": "megajoule",
    "eV": "electron_volt",
    "keV": "kiloelectron_volt",
    "MeV": "megaelectron_volt",
    "GeV": "gigaelectron_volt",
    "W": "watt",
    "kW": "kilowatt",
    "MW": "megawatt",
    "GW": "gigawatt",
    "kWh": "kilowatt_hour",
    "cal": "calorie",
    "kcal": "kilocalorie",
    "K": "kelvin",
    "°C": "degC",
    "° C": "degC",
    "℃": "degC",
    "°F": "degF",
    "° F": "degF",
    "°": "degree",
    "deg": "degree",
    "rad": "radian",
    "Hz": "hertz",
    "kHz": "kilohertz",
    "MHz": "megahertz",
    "GHz": "gigahertz",
    "Pa": "pascal",
    "kPa": "kilopascal",
    "MPa": "megapascal",
    "atm": "atmosphere",
    "V": "volt",
    "kV": "kilovolt",
    "mV": "millivolt",
    "A": "ampere",
    "mA": "milliampere",
    "Ω": "ohm",
    "C": "coulomb",
    "L": "liter",
    "mL": "milliliter",
    "mol": "mole",
    "mmol": "millimole",
    "mph": "mile/hour",
    "kph": "kilometer/hour",
    "bit": "bit",
    "bits": "bit",
    "kB": "kilobyte",
    "KB": "kilobyte",
    "MB": "megabyte",
    "GB": "gigabyte",
    "TB": "terabyte",
}
# Spelled-out units; a plural "s" is accepted for each.
_WORD_UNITS: dict[str, str] = {
    "meter": "meter",
    "metre": "meter",
    "kilometer": "kilometer",
    "kilometre": "kilometer",
    "centimeter": "centimeter",
    "centimetre": "centimeter",
    "millimeter": "millimeter",
    "millimetre": "millimeter",
    "mile": "mile",
    "second": "second",
    "millisecond": "millisecond",
    "minute": "minute",
    "hour": "hour",
    "day": "day",
    "week": "week",
    "month": "month",
    "year": "year",
    "gram": "gram",
    "kilogram": "kilogram",
    "newton": "newton",
    "joule": "joule",
    "watt": "watt",
    "volt": "volt",
    "ampere": "ampere",
    "pascal": "pascal",
    "liter": "liter",
    "litre": "liter",
    "mole": "mole",
    "radian": "radian",
    "degree": "degree",
    "calorie": "calorie",
    "byte": "byte",
    "ohm": "ohm",
    "coulomb": "coulomb",
    "pound": "pound",
    "electronvolt": "electron_volt",
}
_INVARIANT_WORD_UNITS: dict[str, str] = {
    "feet": "foot",
    "foot": "foot",
    "kelvin": "kelvin",
    "hertz": "hertz",
    "degrees Celsius": "degC",
    "degree Celsius": "degC",
    "degrees Fahrenheit": "degF",
    "degree Fahrenheit": "degF",
    # "cook the fish to 145 degrees F" is a temperature, not an angle
    "degrees F": "degF",
    "degree F": "degF",
    "degrees C": "degC",
    "degree C": "degC",
}
PERCENT_UNITS = ("%", "percent", "per cent")


def _unit_table() -> dict[str, str]:
    table = dict(_SYMBOL_UNITS)
    for word, pint_name in _WORD_UNITS.items():
        table[word] = pint_name
        table[word + "s"] = pint_name
    table.update(_INVARIANT_WORD_UNITS)
    for percent in PERCENT_UNITS:
        table[percent] = "percent"
    return table


UNITS: dict[str, str] = _unit_table()  # written unit -> pint expression
