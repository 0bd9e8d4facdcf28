"""The judged set of meals in one sentence (issue 39.3): sentences as people type them
in food diaries and diary apps' free-text boxes, each with the items a person means,
the words of each as the splitter should leave them (catalogue/analysis/sentences.py).
Written from diaries before the splitter was scored on them, not from its output.

A sentence is right when its items are exactly these, in order (case and spacing
aside): every item right, none missing, none extra. A dish a person means as one food
("mac and cheese", "a ham and cheese sandwich") is one item; seasonings and sides named
together ("salt and pepper", "chips and salsa") are several.

US: market US, as a Taster of market US sends them. IN: market IN (IFCT 2017), Indian
meals as typed in Indian diaries.
"""

from __future__ import annotations

US: list[tuple[str, list[str]]] = [
    ("2 eggs and a slice of toast with butter", ["2 eggs", "a slice of toast", "butter"]),
    ("oatmeal with blueberries and a cup of coffee", [
        "oatmeal", "blueberries", "a cup of coffee"]),
    ("Breakfast: greek yogurt, granola and a banana", ["greek yogurt", "granola", "a banana"]),
    ("a turkey sandwich and an apple", ["a turkey sandwich", "an apple"]),
    ("bowl of cheerios with 2% milk", ["bowl of cheerios", "2% milk"]),
    ("grilled chicken salad with ranch dressing", ["grilled chicken salad", "ranch dressing"]),
    ("mac and cheese and a glass of milk", ["mac and cheese", "a glass of milk"]),
    ("spaghetti and meatballs with parmesan", ["spaghetti and meatballs", "parmesan"]),
    ("a peanut butter and jelly sandwich and a glass of milk", [
        "a peanut butter and jelly sandwich", "a glass of milk"]),
    ("2 slices of pepperoni pizza and a diet coke", [
        "2 slices of pepperoni pizza", "a diet coke"]),
    ("chicken breast with rice and broccoli", ["chicken breast", "rice", "broccoli"]),
    ("coffee with cream and sugar", ["coffee", "cream", "sugar"]),
    ("a bagel with cream cheese", ["a bagel", "cream cheese"]),
    ("salmon, brown rice, steamed broccoli", ["salmon", "brown rice", "steamed broccoli"]),
    ("a handful of almonds", ["a handful of almonds"]),
    ("2 scrambled eggs, bacon and hash browns", ["2 scrambled eggs", "bacon", "hash browns"]),
    ("protein shake with a banana and peanut butter", [
        "protein shake", "a banana", "peanut butter"]),
    ("half a cup of cottage cheese with pineapple", [
        "half a cup of cottage cheese", "pineapple"]),
    ("cheeseburger and fries", ["cheeseburger", "fries"]),
    ("fish and chips with tartar sauce", ["fish and chips", "tartar sauce"]),
    ("rice and beans with salsa", ["rice and beans", "salsa"]),
    ("a bowl of chili with cheese and crackers", ["a bowl of chili", "cheese", "crackers"]),
    ("tuna salad on wheat bread", ["tuna salad on wheat bread"]),
    ("two hard boiled eggs and an orange", ["two hard boiled eggs", "an orange"]),
    ("a cup of tomato soup and a grilled cheese sandwich", [
        "a cup of tomato soup", "a grilled cheese sandwich"]),
    ("steak, baked potato with sour cream, and a side salad", [
        "steak", "baked potato", "sour cream", "a side salad"]),
    ("pancakes with maple syrup and a glass of orange juice", [
        "pancakes", "maple syrup", "a glass of orange juice"]),
    ("I had a bowl of oatmeal with raisins for breakfast", ["a bowl of oatmeal", "raisins"]),
    ("lunch was a chicken caesar salad", ["a chicken caesar salad"]),
    ("strawberries and whipped cream", ["strawberries", "whipped cream"]),
    ("chips and salsa", ["chips", "salsa"]),
    ("2 tacos with ground beef, lettuce and cheese", [
        "2 tacos", "ground beef", "lettuce", "cheese"]),
    ("a slice of apple pie with vanilla ice cream", [
        "a slice of apple pie", "vanilla ice cream"]),
    ("hummus with carrots and pita", ["hummus", "carrots", "pita"]),
    ("chicken noodle soup and crackers", ["chicken noodle soup", "crackers"]),
    ("black coffee, a blueberry muffin", ["black coffee", "a blueberry muffin"]),
    ("a glass of red wine", ["a glass of red wine"]),
    ("2 fried eggs with salt and pepper", ["2 fried eggs", "salt", "pepper"]),
    ("a banana and 2 tbsp peanut butter", ["a banana", "2 tbsp peanut butter"]),
    ("1 cup of white rice and 4 oz of grilled chicken", [
        "1 cup of white rice", "4 oz of grilled chicken"]),
    ("greek yogurt with honey & walnuts", ["greek yogurt", "honey", "walnuts"]),
    ("string cheese and an apple", ["string cheese", "an apple"]),
    ("a mug of hot chocolate", ["a mug of hot chocolate"]),
    ("french toast with syrup and bacon", ["french toast", "syrup", "bacon"]),
    ("shrimp and grits", ["shrimp and grits"]),
    ("biscuits and gravy", ["biscuits and gravy"]),
    ("a ham and cheese sandwich", ["a ham and cheese sandwich"]),
    ("bread and butter", ["bread", "butter"]),
    ("eggs and bacon", ["eggs", "bacon"]),
    ("chicken and dumplings", ["chicken and dumplings"]),
    ("Dinner: pork chops, mashed potatoes and green beans", [
        "pork chops", "mashed potatoes", "green beans"]),
    ("a small latte and a croissant", ["a small latte", "a croissant"]),
]  # fmt: skip

IN: list[tuple[str, list[str]]] = [
    ("two chapatis with dal and a cup of curd", ["two chapatis", "dal", "a cup of curd"]),
    ("2 rotis, dal and bhindi sabzi", ["2 rotis", "dal", "bhindi sabzi"]),
    ("rice and sambar with a papad", ["rice", "sambar", "a papad"]),
    ("2 idlis with coconut chutney and sambar", ["2 idlis", "coconut chutney", "sambar"]),
    ("a plate of poha and a cup of chai", ["a plate of poha", "a cup of chai"]),
    ("aloo paratha with curd and pickle", ["aloo paratha", "curd", "pickle"]),
    ("1 bowl rajma, 1 bowl rice", ["1 bowl rajma", "1 bowl rice"]),
    ("masala dosa and filter coffee", ["masala dosa", "filter coffee"]),
    ("jeera rice with dal makhani and salad", ["jeera rice", "dal makhani", "salad"]),
    ("a glass of buttermilk", ["a glass of buttermilk"]),
    ("2 boiled eggs and a banana", ["2 boiled eggs", "a banana"]),
    ("upma with coconut chutney", ["upma", "coconut chutney"]),
    ("chole bhature", ["chole bhature"]),
    ("paneer butter masala with 2 naan", ["paneer butter masala", "2 naan"]),
    ("khichdi with ghee and papad", ["khichdi", "ghee", "papad"]),
    ("a handful of roasted chana", ["a handful of roasted chana"]),
    ("tea with 2 marie biscuits", ["tea", "2 marie biscuits"]),
    ("curd rice and pickle", ["curd rice", "pickle"]),
    ("dal chawal", ["dal chawal"]),
    ("3 phulkas, palak paneer and a bowl of curd", [
        "3 phulkas", "palak paneer", "a bowl of curd"]),
    ("sprouts salad with lemon", ["sprouts salad", "lemon"]),
    ("chicken curry and rice", ["chicken curry", "rice"]),
    ("milk with turmeric", ["milk", "turmeric"]),
    ("poori with aloo sabzi", ["poori", "aloo sabzi"]),
    ("Lunch: 2 rotis, mixed veg and a bowl of dal", ["2 rotis", "mixed veg", "a bowl of dal"]),
]  # fmt: skip
