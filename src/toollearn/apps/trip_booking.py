"""Trip Booking: 18 API functions plus the `Loc`/`Date` helpers (20 in all, paper A.4).

A program first calls `select_booking_type` ("trip tickets", "hotels" or "both"), then the
setters its booking type allows, and ends with `search()`, which checks the required calls
of that booking type and fills defaults (`default_criteria`). The criteria recorded at
`search()` are the result.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from toollearn.apps.base import App, Branch, Date, Loc, api, require

TICKETS = ("trip tickets", "both")
HOTELS = ("hotels", "both")
TICKET_CALLS = (
    "select_transportation",
    "set_origin",
    "set_destination",
    "set_min_ticket_price",
    "set_max_ticket_price",
    "set_num_adults",
    "set_num_children",
    "set_departure_date",
    "set_return_date",
)
HOTEL_CALLS = (
    "set_hotel_location",
    "set_checkin_date",
    "set_checkout_date",
    "set_num_rooms",
    "select_room_type",
    "set_min_room_price",
    "set_max_room_price",
)
# The criteria `search()` requires per booking type (below) and the setters that record them.
REQUIRED_CALLS = {
    "trip tickets": (
        "select_transportation",
        "set_origin",
        "set_destination",
        "set_departure_date",
    ),
    "hotels": ("set_hotel_location", "set_checkin_date", "set_checkout_date"),
}
REQUIRED_CALLS["both"] = REQUIRED_CALLS["trip tickets"][:3] + REQUIRED_CALLS["hotels"]
REQUIRED = {
    "trip tickets": ("means_of_transportation", "location_from", "location_to", "departure_date"),
    "hotels": ("location", "checkin_date", "checkout_date"),
}
REQUIRED["both"] = REQUIRED["trip tickets"][:3] + REQUIRED["hotels"]


class TripBookingApp(App):
    """Search transportation tickets, hotel rooms, or both, by places, dates and prices."""

    name: ClassVar[str] = "trip-booking"
    title: ClassVar[str] = "Trip Booking"
    first_calls: ClassVar[tuple[str, ...]] = ("select_booking_type",)
    last_call: ClassVar[str] = "search"
    helpers: ClassVar[tuple[str, ...]] = ("Loc", "Date")
    branches: ClassVar[dict[str, Branch]] = {
        "trip tickets": Branch(TICKET_CALLS, REQUIRED_CALLS["trip tickets"]),
        "hotels": Branch(HOTEL_CALLS, REQUIRED_CALLS["hotels"]),
        "both": Branch(TICKET_CALLS + HOTEL_CALLS, REQUIRED_CALLS["both"]),
    }

    @classmethod
    def default_criteria(cls, criteria: dict[str, Any]) -> dict[str, Any]:
        """Tickets: no minimum price, 1 adult. Hotels: no minimum price, 1 room. Both: the
        trip's dates default to the stay's."""
        kind = criteria.get("booking_type")
        out: dict[str, Any] = {}
        if kind in TICKETS:
            out.update(min_price_ticket=0, num_adults=1)
        if kind in HOTELS:
            out.update(min_price_room=0, num_rooms=1)
        if kind == "both":
            for key, source in (
                ("departure_date", "checkin_date"),
                ("return_date", "checkout_date"),
            ):
                if source in criteria:
                    out[key] = criteria[source]
        return out

    def _need(self, name: str, what: str = "") -> None:
        """AppError unless API function `name` is allowed for the selected booking type."""
        kind = self.search_criteria["booking_type"]
        allowed = name in self.branches[kind].allowed
        require(allowed, f"{what or name} is not allowed for booking type {kind!r}")

    @api
    def select_booking_type(self, booking_type: Literal["trip tickets", "hotels", "both"]) -> None:
        """Select the booking type: 'trip tickets', 'hotels' or 'both'. Must be the first call."""
        self._set("booking_type", booking_type)

    @api
    def select_transportation(
        self, transportation_type: Literal["flight", "train", "bus", "cruise"]
    ) -> None:
        """Select the means of transportation: 'flight', 'train', 'bus' or 'cruise'."""
        self._need("select_transportation")
        self._set("means_of_transportation", transportation_type)

    @api
    def set_origin(self, value: Loc) -> None:
        """Set the departure location, given a Loc object, e.g. Loc("Boston")."""
        self._need("set_origin")
        self._set("location_from", value.name)

    @api
    def set_destination(self, value: Loc) -> None:
        """Set the arrival location, given a Loc object, e.g. Loc("Chicago")."""
        self._need("set_destination")
        self._set("location_to", value.name)

    def _price(self, name: str, key: str, value: int) -> None:
        self._need(name, key)
        require(value >= 0, f"{key} must not be negative, got {value}")
        self._set(key, value)

    @api
    def set_min_ticket_price(self, value: int) -> None:
        """Set the minimum ticket price in dollars."""
        self._price("set_min_ticket_price", "min_price_ticket", value)

    @api
    def set_max_ticket_price(self, value: int) -> None:
        """Set the maximum ticket price in dollars."""
        self._price("set_max_ticket_price", "max_price_ticket", value)

    @api
    def set_num_adults(self, value: int) -> None:
        """Set the number of adult tickets."""
        self._need("set_num_adults")
        require(value >= 1, f"num_adults must be at least 1, got {value}")
        self._set("num_adults", value)

    @api
    def set_num_children(self, value: int) -> None:
        """Set the number of child tickets."""
        self._price("set_num_children", "num_children", value)

    @api
    def set_departure_date(self, value: Date) -> None:
        """Set the departure date of the trip, given a Date object, e.g. Date(8, 15, 2023)."""
        self._need("set_departure_date")
        self._set("departure_date", value.iso)

    @api
    def set_return_date(self, value: Date) -> None:
        """Set the return date of the trip, given a Date object."""
        self._need("set_return_date")
        self._set("return_date", value.iso)

    @api
    def set_hotel_location(self, value: Loc) -> None:
        """Set the hotel location, given a Loc object."""
        self._need("set_hotel_location")
        self._set("location", value.name)

    @api
    def set_checkin_date(self, value: Date) -> None:
        """Set the hotel check-in date, given a Date object."""
        self._need("set_checkin_date")
        self._set("checkin_date", value.iso)

    @api
    def set_checkout_date(self, value: Date) -> None:
        """Set the hotel check-out date, given a Date object."""
        self._need("set_checkout_date")
        self._set("checkout_date", value.iso)

    @api
    def set_num_rooms(self, value: int) -> None:
        """Set the number of hotel rooms."""
        self._need("set_num_rooms")
        require(value >= 1, f"num_rooms must be at least 1, got {value}")
        self._set("num_rooms", value)

    @api
    def select_room_type(self, value: Literal["King Bed", "Queen Bed", "Double", "Luxury"]) -> None:
        """Select the room type: 'King Bed', 'Queen Bed', 'Double' or 'Luxury'."""
        self._need("select_room_type")
        self._set("room_type", value)

    @api
    def set_min_room_price(self, value: int) -> None:
        """Set the minimum hotel room price per night in dollars."""
        self._price("set_min_room_price", "min_price_room", value)

    @api
    def set_max_room_price(self, value: int) -> None:
        """Set the maximum hotel room price per night in dollars."""
        self._price("set_max_room_price", "max_price_room", value)

    @api
    def search(self) -> None:
        """Submit the criteria and search. Must be the last call."""
        c = self.search_criteria
        kind = c["booking_type"]
        missing = [key for key in REQUIRED[kind] if key not in c]
        require(not missing, f"{kind} search is missing required criteria {missing}")
        self._fill_defaults()
        self._check_dates(c)

    @staticmethod
    def _check_dates(c: dict) -> None:
        for start, end in (("departure_date", "return_date"), ("checkin_date", "checkout_date")):
            if start in c and end in c:
                require(c[start] <= c[end], f"{end} {c[end]} is before {start} {c[start]}")
        for low, high in (
            ("min_price_ticket", "max_price_ticket"),
            ("min_price_room", "max_price_room"),
        ):
            if high in c:
                require(c[low] <= c[high], f"{low} {c[low]} is above {high} {c[high]}")
