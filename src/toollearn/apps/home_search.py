"""Home Search: 15 API functions that fill a home-search form, then `search()` (paper A.3).

A program starts with `set_location` and `set_buy_or_rent`, sets criteria, and ends with
`search()`; anything else is non-executable. The criteria recorded at `search()` are the result.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from toollearn.apps.base import App, api, require

BUY_TYPES = ("house", "townhouse", "condo", "land", "multi-family", "mobile", "co-op")
RENT_TYPES = ("house", "townhouse", "condo", "apartment")
# What search() records for a criterion the program leaves unset.
DEFAULTS: dict[str, Any] = {"min_price": 0, "min_square_feet": 0}


class HomeSearchApp(App):
    """Search homes to buy or rent at a location by price, size, rooms and amenities."""

    name: ClassVar[str] = "home-search"
    title: ClassVar[str] = "Home Search"
    first_calls: ClassVar[tuple[str, ...]] = ("set_location", "set_buy_or_rent")
    last_call: ClassVar[str] = "search"

    @classmethod
    def default_criteria(cls, criteria: dict[str, Any]) -> dict[str, Any]:
        """No lower bound on price or size unless the program sets one."""
        return dict(DEFAULTS)

    @api
    def set_location(self, value: str) -> None:
        """Set the location (city) to search homes in. Must be the first call."""
        require(bool(value.strip()), "set_location needs a non-empty location")
        self._set("location", value.strip())

    @api
    def set_buy_or_rent(self, value: Literal["buy", "rent"]) -> None:
        """Choose whether to buy or rent a home: 'buy' or 'rent'. Must follow set_location."""
        self._set("buy_or_rent", value)

    @api
    def select_home_type(self, home_types: list[str]) -> None:
        """Set the home types. To buy: House, Townhouse, Condo, Land, Multi-family, Mobile,
        Co-op; to rent: House, Townhouse, Condo, Apartment."""
        allowed = RENT_TYPES if self.search_criteria["buy_or_rent"] == "rent" else BUY_TYPES
        types = sorted({t.strip().lower() for t in home_types})
        require(bool(types), "select_home_type needs at least one home type")
        bad = [t for t in types if t not in allowed]
        require(not bad, f"invalid home type(s) {bad} for {self.search_criteria['buy_or_rent']}")
        self._set("home_type", ",".join(types))

    def _count(self, key: str, value: int | float, low: int = 0) -> None:
        require(value >= low, f"{key} must be at least {low}, got {value}")
        self._set(key, value)

    @api
    def set_min_price(self, value: int) -> None:
        """Set the minimum home price in dollars (monthly rent when renting)."""
        self._count("min_price", value)

    @api
    def set_max_price(self, value: int) -> None:
        """Set the maximum home price in dollars (monthly rent when renting)."""
        self._count("max_price", value)

    @api
    def set_min_square_feet(self, value: int) -> None:
        """Set the minimum home size in square feet."""
        self._count("min_square_feet", value)

    @api
    def set_max_square_feet(self, value: int) -> None:
        """Set the maximum home size in square feet."""
        self._count("max_square_feet", value)

    @api
    def set_num_beds(self, value: int) -> None:
        """Set the number of bedrooms."""
        self._count("num_beds", value)

    @api
    def set_num_baths(self, value: float) -> None:
        """Set the number of bathrooms (halves allowed, e.g. 2.5)."""
        self._count("num_baths", value)

    @api
    def set_num_garages(self, value: int) -> None:
        """Set the number of garages."""
        self._count("num_garages", value)

    @api
    def set_num_swimming_pools(self, value: int) -> None:
        """Set the number of swimming pools."""
        self._count("num_swimming_pools", value)

    @api
    def set_floor_number(self, value: int) -> None:
        """Set the floor number the home is on."""
        self._count("floor_number", value)

    @api
    def set_max_commute_time(self, value: int) -> None:
        """Set the maximum commute time in minutes."""
        self._count("max_commute_time", value, low=1)

    @api
    def set_num_balconies(self, value: int) -> None:
        """Set the number of balconies."""
        self._count("num_balconies", value)

    @api
    def search(self) -> None:
        """Submit the criteria and search. Must be the last call."""
        self._fill_defaults()
        c = self.search_criteria
        for low, high in (("min_price", "max_price"), ("min_square_feet", "max_square_feet")):
            if high in c:
                require(c[low] <= c[high], f"{low} {c[low]} is above {high} {c[high]}")
