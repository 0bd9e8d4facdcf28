"""The judged set of dishes people log (issue 39, point 5): dishes, drinks and snacks as
people type them into a food diary (a meal-tracking app's search box: lowercase, the
everyday name, no brand), and what a good first result holds. Written from what people
type and from the names the catalogue's reference data gives such foods (FNDDS, the
survey of what Americans eat, names dishes as eaten: "Macaroni or noodles with cheese",
"Rice, fried, with chicken"; the IFCT names Indian foods as bought), not from any
ranking's output; grow it by adding a line where bench/scripts/dish_quality.py prints
a miss that a person would call wrong.

US: (query, pattern), market US. A good first result is a reference food (Foundation,
SR Legacy / SR28, survey FNDDS) whose name matches ``pattern`` (a regular expression,
case-insensitive, searched anywhere in the name): the dish itself, before a branded
tray, cup or box of the same name, and not a food the dish is made of (``egg fried
rice`` is fried rice, not a fried egg). ``US_ANY_DATA_TYPE``: the queries for which
USDA's reference data holds no such food (``fish and chips``), judged on any data type.

IN: (query, pattern), market IN: what people in India type (English and Hindi names of
dals, drinks, snacks and staples of a day's meals), judged on the IFCT's foods (the
market's whole catalogue), first result matching ``pattern``.
"""

from __future__ import annotations

US: list[tuple[str, str]] = [
    # Dishes named by two foods joined: one food, not either of them.
    ("mac and cheese", r"^macaroni (and|or noodles with) cheese"),
    ("macaroni and cheese", r"^macaroni (and|or noodles with) cheese"),
    ("peanut butter and jelly sandwich", r"^peanut butter and jelly"),
    ("peanut butter jelly sandwich", r"^peanut butter and jelly"),
    ("rice and beans", r"beans and rice|rice and (red |black )?beans"),
    ("fish and chips", r"fish (and|&) chips"),
    ("spaghetti and meatballs", r"spaghetti.*meatballs"),
    ("chicken and rice", r"^chicken.*rice|rice.*chicken"),
    ("biscuits and gravy", r"^biscuits? (and|with) gravy"),
    ("chips and salsa", r"tortilla chips|salsa"),
    # A dish's own word is not a food: the dish first.
    ("egg fried rice", r"^rice, fried"),
    ("chicken fried rice", r"^rice, fried, with chicken"),
    ("fried rice", r"^rice, fried"),
    ("chicken noodle soup", r"chicken noodle soup|soup, chicken noodle"),
    ("tomato soup", r"tomato soup|soup, tomato"),
    ("clam chowder", r"clam chowder"),
    ("beef stew", r"^beef stew|^stew, beef"),
    ("chili con carne", r"^chili con carne"),
    ("chicken curry", r"^chicken curry"),
    ("chicken tikka masala", r"^chicken (curry|tikka)"),
    ("lasagna", r"^lasagna"),
    ("meatloaf", r"^meat ?loaf"),
    ("pot roast", r"pot roast"),
    ("chicken alfredo", r"alfredo"),
    ("spaghetti with meat sauce", r"^spaghetti.*meat sauce"),
    ("pad thai", r"pad thai"),
    ("sushi", r"^sushi"),
    ("beef tacos", r"^tacos?\b.*beef"),
    ("bean burrito", r"^burrito.*bean"),
    ("chicken quesadilla", r"^quesadilla.*chicken"),
    ("cheeseburger", r"^cheeseburger"),
    ("hamburger", r"^hamburger"),
    ("hot dog", r"^hot dog"),
    ("pepperoni pizza", r"^pizza.*pepperoni"),
    ("cheese pizza", r"^pizza.*cheese"),
    ("chicken nuggets", r"chicken nuggets"),
    ("fried chicken", r"^chicken.*fried|fried chicken"),
    ("chicken wings", r"chicken.*wings?"),
    ("grilled cheese sandwich", r"^grilled cheese sandwich"),
    ("turkey sandwich", r"^turkey sandwich"),
    ("ham sandwich", r"^ham sandwich"),
    ("egg salad sandwich", r"^egg salad sandwich"),
    ("tuna salad", r"tuna salad"),
    ("chicken salad", r"^chicken salad"),
    ("potato salad", r"^potato salad"),
    ("caesar salad", r"caesar salad"),
    ("coleslaw", r"^coleslaw"),
    ("french fries", r"french fr"),
    ("mashed potatoes", r"mashed"),
    ("baked potato", r"potato.*baked|baked potato"),
    ("onion rings", r"onion rings"),
    # Breakfast.
    ("scrambled eggs", r"scrambled"),
    ("fried egg", r"^eggs?, .*fried"),
    ("hard boiled egg", r"^eggs?, .*boiled"),
    ("pancakes", r"^pancakes?"),
    ("waffles", r"^waffles?"),
    ("french toast", r"^french toast"),
    ("oatmeal with milk", r"^oatmeal|^cereals, oats"),
    ("bagel with cream cheese", r"^bagel"),
    ("blueberry muffin", r"^muffins?, blueberry"),
    # Drinks.
    ("black coffee", r"^coffee, brewed"),
    ("coffee with milk", r"^coffee.*milk"),
    ("latte", r"latte"),
    ("cappuccino", r"cappuccino"),
    ("iced tea", r"^tea, iced|^iced tea"),
    ("hot chocolate", r"hot chocolate|cocoa"),
    ("chocolate milk", r"^milk, chocolate|^chocolate milk"),
    ("apple juice", r"^apple juice|^juice, apple"),
    ("lemonade", r"^lemonade"),
    ("beer", r"^beer"),
    ("red wine", r"^wine, .*red"),
    # Snacks and sweets.
    ("potato chips", r"potato chips|chips, potato"),
    ("tortilla chips", r"tortilla chips"),
    ("popcorn", r"^popcorn"),
    ("pretzels", r"^pretzels"),
    ("trail mix", r"^trail mix"),
    ("granola bar", r"granola bar"),
    ("hummus", r"^hummus"),
    ("guacamole", r"^guacamole"),
    ("apple pie", r"^pie, apple|^apple pie"),
    ("cheesecake", r"^cheesecake"),
    ("chocolate chip cookie", r"^cookie, chocolate chip|^cookies, chocolate chip"),
    ("brownie", r"brownie"),
    ("glazed donut", r"^dou?ghnuts?,.*glazed"),
    ("vanilla ice cream", r"^ice creams?, .*vanilla"),
    ("grape jelly", r"(^|grape )jell(y|ies)"),
]

# Queries for which USDA's reference data holds no food matching the pattern (FNDDS
# lists the sauce, "Alfredo sauce with poultry", and jelly of no flavour): the branded
# product is the dish (judged on any data type).
US_ANY_DATA_TYPE: frozenset[str] = frozenset({"fish and chips", "chicken alfredo", "grape jelly"})

IN: list[tuple[str, str]] = [
    # Dals and pulses, as cooked every day.
    ("moong dal", r"^green gram, dal"),
    ("toor dal", r"^red gram, dal"),
    ("arhar dal", r"^red gram, dal"),
    ("chana dal", r"^bengal gram, dal"),
    ("masoor dal", r"^lentil dal"),
    ("urad dal", r"^black gram, dal"),
    ("rajma", r"^rajmah"),
    ("kabuli chana", r"^bengal gram, whole"),
    ("sprouted moong", r"^green gram"),
    # Staples.
    ("poha", r"^rice flakes"),
    ("puffed rice", r"^rice puffed"),
    ("murmura", r"^rice puffed"),
    ("sooji", r"^wheat, semolina"),
    ("atta", r"^wheat flour, atta"),
    ("maida", r"^wheat flour, refined"),
    ("vermicelli", r"^wheat, vermicelli"),
    ("ragi", r"^ragi"),
    ("bajra", r"^bajra"),
    ("jowar", r"^jowar"),
    # Dairy and eggs.
    ("paneer", r"^paneer"),
    ("ghee", r"^ghee"),
    ("khoa", r"^khoa"),
    ("cow milk", r"^milk, whole, cow"),
    ("buffalo milk", r"^milk, whole, buffalo"),
    ("boiled egg", r"^egg, poultry, whole, boiled"),
    ("egg omelette", r"^egg, poultry, omlet"),
    # Drinks.
    ("coconut water", r"^coconut water"),
    ("tender coconut water", r"^coconut water"),
    ("sugarcane juice", r"^sugarcane, juice"),
    ("toddy", r"^toddy"),
    # Snacks.
    ("roasted peanuts", r"^ground ?nut"),
    ("kaju", r"^cashew"),
    ("badam", r"^almond"),
    ("jaggery", r"^jaggery"),
]
