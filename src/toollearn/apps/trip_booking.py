"""Trip Booking: 18 API functions plus the `Loc`/`Date` helpers (20 in all, paper A.4).

A program first calls `select_booking_type` ("trip tickets", "hotels" or "both"), then the
setters its booking type allows, and ends with `search()`, which checks the required calls
of that booking type and fills defaults (`default_criteria`). The criteria recorded at
`search()` are the result.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from toollearn.apps.base import App, Date, Loc, api, require

TICKETS = ("trip tickets", "both")
HOTELS = ("hotels", "both")
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

    def _need(self, kinds: tuple[str, ...], what: str) -> None:
        kind = self.search_criteria["booking_type"]
        require(kind in kinds, f"{what} is not allowed for booking type {kind!r}")

    @api
    def select_booking_type(self, booking_type: Literal["trip tickets", "hotels", "both"]) -> None:
        """Select the booking type: 'trip tickets', 'hotels' or 'both'. Must be the first call."""
        self._set("booking_type", booking_type)

    @api
    def select_transportation(
        self, transportation_type: Literal["flight", "train", "bus", "cruise"]
    ) -> None:
        """Select the means of transportation: 'flight', 'train', 'bus' or 'cruise'."""
        self._need(TICKETS, "select_transportation")
        self._set("means_of_transportation", transportation_type)

    @api
    def set_origin(self, value: Loc) -> None:
        """Set the departure location, given a Loc object, e.g. Loc("Boston")."""
        self._need(TICKETS, "set_origin")
        self._set("location_from", value.name)

    @api
    def set_destination(self, value: Loc) -> None:
        """Set the arrival location, given a Loc object, e.g. Loc("Chicago")."""
        self._need(TICKETS, "set_destination")
        self._set("location_to", value.name)

    def _price(self, kinds: tuple[str, ...], key: str, value: int) -> None:
        self._need(kinds, key)
        require(value >= 0, f"{key} must not be negative, got {value}")
        self._set(key, value)

    @api
    def set_min_ticket_price(self, value: int) -> None:
        """Set the minimum ticket price in dollars."""
        self._price(TICKETS, "min_price_ticket", value)

    @api
    def set_max_ticket_price(self, value: int) -> None:
        """Set the maximum ticket price in dollars."""
        self._price(TICKETS, "max_price_ticket", value)

    @api
    def set_num_adults(self, value: int) -> None:
        """Set the number of adult tickets."""
        self._need(TICKETS, "set_num_adults")
        require(value >= 1, f"num_adults must be at least 1, got {value}")
        self._set("num_adults", value)

    @api
    def set_num_children(self, value: int) -> None:
        """Set the number of child tickets."""
        self._price(TICKETS, "num_children", value)

    @api
    def set_departure_date(self, value: Date) -> None:
        """Set the departure date of the trip, given a Date object, e.g. Date(8, 15, 2023)."""
        self._need(TICKETS, "set_departure_date")
        self._set("departure_date", value.iso)

    @api
    def set_return_date(self, value: Date) -> None:
        """Set the return date of the trip, given a Date object."""
        self._need(TICKETS, "set_return_date")
        self._set("return_date", value.iso)

    @api
    def set_hotel_location(self, value: Loc) -> None:
        """Set the hotel location, given a Loc object."""
        self._need(HOTELS, "set_hotel_location")
        self._set("location", value.name)

    @api
    def set_checkin_date(self, value: Date) -> None:
        """Set the hotel check-in date, given a Date object."""
        self._need(HOTELS, "set_checkin_date")
        self._set("checkin_date", value.iso)

    @api
    def set_checkout_date(self, value: Date) -> None:
        """Set the hotel check-out date, given a Date object."""
        self._need(HOTELS, "set_checkout_date")
        self._set("checkout_date", value.iso)

    @api
    def set_num_rooms(self, value: int) -> None:
        """Set the number of hotel rooms."""
        self._need(HOTELS, "set_num_rooms")
        require(value >= 1, f"num_rooms must be at least 1, got {value}")
        self._set("num_rooms", value)

    @api
    def select_room_type(self, value: Literal["King Bed", "Queen Bed", "Double", "Luxury"]) -> None:
        """Select the room type: 'King Bed', 'Queen Bed', 'Double' or 'Luxury'."""
        self._need(HOTELS, "select_room_type")
        self._set("room_type", value)

    @api
    def set_min_room_price(self, value: int) -> None:
        """Set the minimum hotel room price per night in dollars."""
        self._price(HOTELS, "min_price_room", value)

    @api
    def set_max_room_price(self, value: int) -> None:
        """Set the maximum hotel room price per night in dollars."""
        self._price(HOTELS, "max_price_room", value)

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
