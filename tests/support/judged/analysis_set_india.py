"""The judged set of POST /v1/analysis in market IN (issue 38, point 7): ingredient lines
as Indian recipe sites print them (dal, sabzi, roti, rice and sweet recipes: "1 cup toor
dal", "2 tbsp ghee", "1 tsp haldi", "2 medium onions, finely chopped"), each with the
IFCT 2017 food meant and its grams.

LINES: (line, pattern, grams), scored like tests/support/judged/analysis_set.py.
``pattern``: a regular expression (case-insensitive, anchored at the start of the name)
the matched IFCT food's name must match: the food a person means ("toor dal" is "Red
gram, dal"; any IFCT onion for "1 onion"). ``grams``: what SR28's household measures
(WEIGHT.txt) give for the line on the SR28 food equivalent to it, the food whose measure
an IFCT food borrows (catalogue/data/measure_lenders.csv: toor dal weighs as "Pigeon
peas (red gram), mature seeds, raw", 1 cup = 205 g; ghee as "Butter oil, anhydrous",
1 tbsp = 12.8 g); a count word without a size is the medium one. Written from recipes,
not from the service's output.

Left out of LINES, because SR28 has no measure for them, so no grams can be judged
without inventing one: "1 inch ginger" (no inch measure), "1/4 tsp hing" (no
asafoetida), "1 tsp ajwain", "1 cup poha", "1 cup paneer cubes", "10 cashews" (raw
cashews: only 1 oz), "4 green cardamom", "1 cup methi leaves", "2 brinjals" (SR28's
eggplant is the 550 g American one, not an Indian brinjal).

ABSENT: lines a recipe prints whose food IFCT 2017 does not hold (curd, besan, sugar,
salt, water, garam masala, ...). In market IN they must not be matched to another
food; bench/scripts/analysis_quality.py prints what they got.
"""

from __future__ import annotations

LINES: list[tuple[str, str, float]] = [
    # dals and pulses (dal tadka, sambar, dal makhani, chole, rajma)
    ("1 cup toor dal", r"red gram, dal", 205),
    ("1/2 cup toor dal", r"red gram, dal", 102.5),
    ("1 cup arhar dal", r"red gram, dal", 205),
    ("1 cup moong dal", r"green gram, dal", 207),
    ("1/2 cup yellow moong dal", r"green gram, dal", 103.5),
    ("1/2 cup masoor dal", r"lentil dal", 96),
    ("1 cup urad dal", r"black gram, dal", 207),
    ("1/4 cup chana dal", r"bengal gram, dal", 50),
    ("1 tbsp chana dal", r"bengal gram, dal", 12.5),
    ("1 cup kabuli chana", r"bengal gram, whole", 200),
    ("1 cup chickpeas", r"bengal gram, whole", 200),
    ("1 cup rajma", r"rajmah, red", 184),
    ("1/2 cup whole moong", r"green gram, whole", 103.5),
    # fats
    ("2 tbsp ghee", r"ghee", 25.6),
    ("1 tbsp ghee", r"ghee", 12.8),
    ("1 tsp ghee", r"ghee", 4.3),
    ("1/4 cup ghee", r"ghee", 51.25),
    ("2 tbsp oil", r".*\boil\b", 27.2),
    ("1 tbsp mustard oil", r"mustard oil", 14),
    ("2 tbsp coconut oil", r"coconut oil", 27.2),
    ("1 tbsp sesame oil", r"gingelly oil", 13.6),
    ("2 tbsp groundnut oil", r"groundnut oil", 27),
    ("1 tbsp peanut oil", r"groundnut oil", 13.5),
    # whole and ground spices
    ("1 tsp jeera", r"cumin seeds", 2.1),
    ("1 tsp cumin seeds", r"cumin seeds", 2.1),
    ("1/2 tsp cumin seeds", r"cumin seeds", 1.05),
    ("1/2 tsp mustard seeds", r"mustard seeds", 1.0),
    ("1 tsp rai", r"mustard seeds", 2.0),
    ("1/4 tsp turmeric powder", r"turmeric powder", 0.75),
    ("1/2 tsp turmeric", r"turmeric powder", 1.5),
    ("1 tsp haldi", r"turmeric powder", 3.0),
    ("1/4 tsp haldi powder", r"turmeric powder", 0.75),
    ("1 tsp coriander powder", r"coriander seeds", 1.8),
    ("1 tsp dhania powder", r"coriander seeds", 1.8),
    ("1 tsp red chilli powder", r"chillies, red", 1.8),
    ("1/2 tsp lal mirch powder", r"chillies, red", 0.9),
    ("1/2 tsp black pepper", r"pepper, black", 1.15),
    ("1/2 tsp cardamom powder", r"cardamom, green", 1.0),
    ("1/4 tsp elaichi powder", r"cardamom, green", 0.5),
    ("1/2 tsp fenugreek seeds", r"fenugreek seeds", 1.85),
    ("1/4 tsp methi seeds", r"fenugreek seeds", 0.93),
    ("1 tsp poppy seeds", r"poppy seeds", 2.8),
    ("1/4 tsp nutmeg powder", r"nutmeg", 0.55),
    ("1 tsp sesame seeds", r"gingelly seeds", 3.0),
    ("2 tbsp til", r"gingelly seeds", 18),
    # onion, tomato, ginger, garlic, chillies, herbs
    ("1 onion, finely chopped", r"onion, (big|small)", 110),
    ("2 medium onions, finely chopped", r"onion, (big|small)", 220),
    ("1 large onion, thinly sliced", r"onion, (big|small)", 150),
    ("1 cup chopped onion", r"onion, (big|small)", 160),
    ("2 tomatoes, chopped", r"tomato, ripe", 246),
    ("1 medium tomato, finely chopped", r"tomato, ripe", 123),
    ("1 cup chopped tomatoes", r"tomato, ripe", 180),
    ("4 cloves garlic", r"garlic", 12),
    ("6 garlic cloves, minced", r"garlic", 18),
    ("1 tbsp grated ginger", r"ginger, fresh", 6),
    ("1 tsp minced ginger", r"ginger, fresh", 2),
    ("2 green chillies, slit", r"chillies, green", 12.2),
    ("1 green chilli, finely chopped", r"chillies, green", 6.1),
    ("2 tbsp chopped coriander leaves", r"coriander leaves", 2),
    ("1/4 cup coriander leaves", r"coriander leaves", 4),
    ("1/4 cup mint leaves", r"mint leaves", 22.8),
    ("1 tbsp lemon juice", r"lemon, juice", 15.25),
    ("1 tbsp tamarind pulp", r"tamarind, pulp", 7.5),
    # grains and flours
    ("1 cup rice", r"rice, raw, milled", 185),
    ("1 cup basmati rice", r"rice, raw, milled", 185),
    ("2 cups atta", r"wheat flour, atta", 240),
    ("1 cup whole wheat flour", r"wheat flour, atta", 120),
    ("1 cup maida", r"wheat flour, refined", 125),
    ("1/2 cup all purpose flour", r"wheat flour, refined", 62.5),
    ("1 cup sooji", r"wheat, semolina", 167),
    ("1 cup rava", r"wheat, semolina", 167),
    # milk, eggs
    ("1 cup milk", r"milk, whole, (cow|buffalo)", 244),
    ("2 cups milk", r"milk, whole, (cow|buffalo)", 488),
    ("200 g paneer", r"paneer", 200),
    ("2 eggs", r"egg, poultry, whole, raw", 88),
    # vegetables
    ("2 potatoes, boiled and mashed", r"potato", 426),
    ("2 medium potatoes, peeled and cubed", r"potato", 426),
    ("1 cup green peas", r"peas, fresh", 145),
    ("1 carrot, chopped", r"carrot", 61),
    ("1 cup grated carrot", r"carrot", 110),
    ("1 cup cauliflower florets", r"cauliflower$", 107),
    ("1 capsicum, chopped", r"capsicum, green", 119),
    ("2 cups chopped spinach", r"spinach", 60),
    ("2 cups palak, chopped", r"spinach", 60),
    ("1 cup chopped cabbage", r"cabbage, green", 89),
    ("1 cup chopped bhindi", r"ladies finger", 100),
    ("250 g bhindi", r"ladies finger", 250),
    ("1 cup lauki, chopped", r"bottle gourd", 116),
    ("1 cup chopped bitter gourd", r"bitter gourd", 93),
    ("1 cup french beans, chopped", r"french beans", 100),
    ("2 cups brinjal, cubed", r"brinjal", 164),
    ("1/2 cup sweet corn", r"maize, tender, sweet", 72.5),
    ("1 beetroot", r"beet root", 82),
    ("1/2 cup grated coconut", r"coconut, kernel, fresh", 40),
    # fruit, nuts, dried fruit
    ("1/2 cup raisins", r"raisins", 72.5),
    ("10 almonds", r"almond", 12),
    ("1/2 cup peanuts", r"ground nut", 73),
    ("1 banana", r"banana, ripe", 118),
    ("1 cup chopped mango", r"mango, ripe", 165),
    ("1 apple", r"apple, (big|small)", 182),
]

ABSENT: list[str] = [
    "1/2 cup curd",
    "1 cup dahi",
    "1 cup besan",
    "1 tbsp sugar",
    "1 tsp salt",
    "3 cups water",
    "1 tsp garam masala",
    "1 bay leaf",
    "1 tsp fennel seeds",
    "1/2 cup fresh cream",
    "2 tbsp butter",
    "1 cup coconut milk",
]
