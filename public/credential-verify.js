// The /verify page: a chosen or dropped credential file is read into the form's text box, to be posted and checked
// by the server. A static file, since the pages' Content-Security-Policy allows no inline script; without JavaScript
// the person pastes the file's contents into the box.
(function () {
/* global FileReader */
  'use strict';
  var form = document.querySelector('form.credential-verify');
  if (!form) return;
  var box = form.querySelector('textarea[name="credential"]');
  var picker = form.querySelector('input[type="file"]');
  var said = form.querySelector('.file-status');
  var wrap = picker && picker.closest('.file-pick');
  if (wrap) wrap.hidden = false;
  var read = function (file) {
    if (!file) return;
    if (file.size > 100000) {
      said.textContent = file.name + ' is larger than a credential (over 100 KB): choose the credential file.';
      return;
    }
    var reader = new FileReader();
    reader.onload = function () {
      box.value = String(reader.result);
      said.textContent = file.name + ' is read. Press Check it.';
    };
    reader.onerror = function () {
      said.textContent = file.name + ' could not be read.';
    };
    reader.readAsText(file);
  };
  if (picker) picker.addEventListener('change', function () { read(picker.files[0]); });
  form.addEventListener('dragover', function (e) { e.preventDefault(); form.classList.add('dropping'); });
  form.addEventListener('dragleave', function () { form.classList.remove('dropping'); });
  form.addEventListener('drop', function (e) {
    e.preventDefault();
    form.classList.remove('dropping');
    if (e.dataTransfer && e.dataTransfer.files.length > 0) read(e.dataTransfer.files[0]);
  });
})();
