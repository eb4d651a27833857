// The guest portal's police step, where a field is not asked of guests of one nationality (SIBA
// asks nothing more of a Portuguese guest): each such field is hidden while its guest's
// nationality reads that country, by its name in the guest's language or its ISO code, and shown
// again otherwise. Without this script every field shows; the server asks only what is needed.
(function () {
  'use strict';
  var boxes = Array.prototype.slice.call(document.querySelectorAll('[data-unless-field]'));
  if (!boxes.length) return;
  var norm = function (s) {
    return String(s || '')
      .trim()
      .toLocaleLowerCase();
  };
  var update = function () {
    boxes.forEach(function (box) {
      var input = document.getElementById(box.getAttribute('data-unless-field'));
      if (!input) return;
      var value = norm(input.value);
      box.hidden = value !== '' && (value === norm(box.getAttribute('data-unless-name')) || value === norm(box.getAttribute('data-unless-code')));
    });
  };
  var watched = {};
  boxes.forEach(function (box) {
    var id = box.getAttribute('data-unless-field');
    var input = document.getElementById(id);
    if (!input || watched[id]) return;
    watched[id] = true;
    input.addEventListener('input', update);
    input.addEventListener('change', update);
  });
  update();
})();
