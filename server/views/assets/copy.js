// The dashboard's copy button: the page works without it (the link is in a field to select),
// so the button stays hidden until this script can do its job.
(function () {
  'use strict';
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    var button = buttons[i];
    var field = document.getElementById(button.getAttribute('data-copy'));
    if (!field) continue;
    button.hidden = false;
    button.addEventListener('click', copier(button, field));
  }

  function copier(button, field) {
    var label = button.textContent;
    return function () {
      var done = function () {
        button.textContent = button.getAttribute('data-copied') || label;
        setTimeout(function () {
          button.textContent = label;
        }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          field.select();
        });
      } else {
        field.select();
        if (document.execCommand('copy')) done();
      }
    };
  }
})();
