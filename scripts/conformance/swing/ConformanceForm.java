// A small Swing form for the conformance suite (run with `java ConformanceForm.java OUT`).
// "Save" writes the form's state to OUT, so a check can verify through the disk
// what ufo typed, ticked, picked and selected. Reached over AT-SPI through the
// ATK bridge (libatk-wrapper-java).
import javax.swing.*;
import java.awt.*;
import java.nio.file.*;

public class ConformanceForm {
    public static void main(String[] args) {
        String out = args.length > 0 ? args[0] : "swing-out.txt";
        SwingUtilities.invokeLater(() -> {
            JFrame f = new JFrame("Swing Conformance Form");
            JPanel p = new JPanel(new GridLayout(0, 2, 6, 6));
            JLabel nameLabel = new JLabel("Name");
            JTextField name = new JTextField(16);
            nameLabel.setLabelFor(name);
            JCheckBox sub = new JCheckBox("Subscribe");
            JComboBox<String> color = new JComboBox<>(new String[] {"Red", "Green", "Blue"});
            color.getAccessibleContext().setAccessibleName("Color");
            JList<String> fruit = new JList<>(new String[] {"apple", "banana", "cherry"});
            fruit.getAccessibleContext().setAccessibleName("Fruit");
            JButton save = new JButton("Save");
            save.addActionListener(e -> {
                String s = "name=" + name.getText() + "\nsubscribe=" + sub.isSelected()
                        + "\ncolor=" + color.getSelectedItem() + "\nfruit=" + fruit.getSelectedValue() + "\n";
                try {
                    Files.writeString(Paths.get(out), s);
                } catch (Exception ex) {
                    ex.printStackTrace();
                }
            });
            p.add(nameLabel); p.add(name);
            p.add(new JLabel("")); p.add(sub);
            p.add(new JLabel("Color")); p.add(color);
            p.add(new JLabel("Fruit")); p.add(fruit);
            p.add(new JLabel("")); p.add(save);
            f.add(p);
            f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            f.pack();
            f.setVisible(true);
        });
    }
}
